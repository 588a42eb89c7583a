"""`ink-ls --acp` driven by the Python ACP SDK's own client (`acp.spawn_agent_process`):
initialize, a prompt that reads (through the client's buffer), edits (allowed), is refused a
write, runs a command, cancel of a running `sleep 60`, and load of the session in a fresh
process."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

from tests.acp.conftest import (
    BUFFER_TEXT,
    SECRET,
    SERVER,
    cancel_turn,
    main_turn,
    process_gone,
)
from tests.fakes.model_server import FakeModelServer

WAIT = 30.0


class RecordingClient:
    """An editor: keeps buffers, records updates, answers permissions from a script."""

    def __init__(self, workspace: Path, answers: dict[str, str]) -> None:
        self.workspace = workspace
        self.buffers = {str(workspace / "app.py"): BUFFER_TEXT}
        self.answers = answers
        self.updates: list[dict[str, Any]] = []
        self.permissions: list[dict[str, Any]] = []
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.changed = asyncio.Condition()

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        async with self.changed:
            self.updates.append(update.model_dump(mode="json", by_alias=True, exclude_none=True))
            self.changed.notify_all()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: Any, **kw: Any
    ) -> RequestPermissionResponse:
        call = tool_call.model_dump(mode="json", by_alias=True, exclude_none=True)
        self.permissions.append(call)
        answer = next(v for k, v in self.answers.items() if k in call.get("title", ""))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def read_text_file(self, session_id: str, path: str, **kw: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kw: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content
        Path(path).write_text(content)  # Zed saves what the agent writes
        return WriteTextFileResponse()

    async def wait_for(self, pred: Any) -> dict[str, Any]:
        async with self.changed:
            await asyncio.wait_for(
                self.changed.wait_for(lambda: any(pred(u) for u in self.updates)), WAIT
            )
        return next(u for u in self.updates if pred(u))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [u for u in self.updates if u["sessionUpdate"] == kind]


CAPS = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True))


async def test_python_sdk_client_full_flow(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    model.push(*main_turn())
    client = RecordingClient(
        workspace, {"app.py": "allow_once", "notes.txt": "reject", "echo": "allow_once"}
    )
    async with spawn_agent_process(client, *SERVER, env=acp_env, cwd=workspace) as (conn, proc):
        init = await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=CAPS)
        caps = init.agent_capabilities
        assert caps is not None and caps.load_session
        assert caps.prompt_capabilities is not None
        assert caps.prompt_capabilities.image and caps.prompt_capabilities.embedded_context
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert new.modes is not None and new.modes.current_mode_id == "ask"
        assert {m.id for m in new.modes.available_modes} == {"ask", "auto", "readonly", "plan"}
        sid = new.session_id

        result = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("make app.py print edited")]), WAIT
        )
        assert result.stop_reason == "end_turn"
        assert result.usage is not None and result.usage.total_tokens > 0

        # the read (and the edit's read) went through the client and saw its unsaved buffer
        assert client.reads == [str(workspace / "app.py")] * 2
        second = model.requests[1]["messages"]
        assert any(
            "print('buffer')" in str(m.get("content")) for m in second if m.get("role") == "tool"
        )
        # edit allowed: asked with the diff, written through the client, on disk
        edit_q = client.permissions[0]
        assert edit_q["kind"] == "edit"
        diff = edit_q["content"][0]
        assert diff["type"] == "diff" and diff["oldText"] == BUFFER_TEXT
        assert diff["newText"] == "print('edited')\n"
        assert (workspace / "app.py").read_text() == "print('edited')\n"
        # the write was rejected: nothing on disk, the model was told
        assert "notes.txt" in client.permissions[1]["title"]
        assert not (workspace / "notes.txt").exists()
        assert any("rejected" in str(m.get("content")) for m in model.requests[3]["messages"])
        # the command asked, ran, and its output is in the tool call
        assert client.permissions[2]["kind"] == "execute"
        starts = {u["toolCallId"]: u for u in client.of("tool_call")}
        assert [u["kind"] for u in starts.values()] == ["read", "edit", "edit", "execute"]
        read_start = next(u for u in starts.values() if u["kind"] == "read")
        assert read_start["locations"][0]["path"] == str(workspace / "app.py")
        ends = [
            u for u in client.of("tool_call_update") if u.get("status") in ("completed", "failed")
        ]
        statuses = {starts[u["toolCallId"]]["kind"] + ":" + u["status"] for u in ends}
        assert {"read:completed", "edit:completed", "edit:failed", "execute:completed"} <= statuses
        run_end = next(u for u in ends if starts[u["toolCallId"]]["kind"] == "execute")
        assert "ran-42" in run_end["content"][0]["content"]["text"]
        edit_end = next(
            u
            for u in ends
            if u["status"] == "completed" and starts[u["toolCallId"]]["kind"] == "edit"
        )
        assert edit_end["content"][0]["type"] == "diff"
        chunks = "".join(u["content"]["text"] for u in client.of("agent_message_chunk"))
        assert chunks == "Done: app.py now prints edited."
        assert SECRET not in str(client.updates)

        # cancel during a running `sleep 60`: the process dies, the prompt answers cancelled
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        model.push(*cancel_turn())
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=sid, prompt=[text_block("sleep a minute")])
        )
        await client.wait_for(
            lambda u: (
                u.get("status") == "in_progress"
                and "sleep" in str(starts_of(client).get(u["toolCallId"], ""))
            )
        )
        pid_file = workspace / "sleep.pid"
        await _until(lambda: pid_file.is_file() and pid_file.read_text().strip() != "")
        pid = int(pid_file.read_text())
        assert not process_gone(pid)
        await conn.cancel(session_id=sid)
        cancelled = await asyncio.wait_for(prompt, WAIT)
        assert cancelled.stop_reason == "cancelled"
        await _until(lambda: process_gone(pid))
        assert proc.returncode is None  # the agent stays up

    # a fresh process loads the session and replays it
    replay = RecordingClient(workspace, {})
    async with spawn_agent_process(replay, *SERVER, env=acp_env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=CAPS)
        loaded = await conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
        assert loaded.modes is not None
        users = [u["content"]["text"] for u in replay.of("user_message_chunk")]
        assert users == ["make app.py print edited", "sleep a minute"]
        agent_text = "".join(u["content"]["text"] for u in replay.of("agent_message_chunk"))
        assert "Done: app.py now prints edited." in agent_text
        kinds = [u["kind"] for u in replay.of("tool_call")]
        assert kinds == ["read", "edit", "edit", "execute", "execute"]


def starts_of(client: RecordingClient) -> dict[str, str]:
    return {u["toolCallId"]: u.get("title", "") for u in client.of("tool_call")}


async def _until(pred: Any) -> None:
    """Wait for a condition outside the protocol (a file, a process) to hold."""
    async with asyncio.timeout(WAIT):
        while not pred():
            await asyncio.sleep(0.05)

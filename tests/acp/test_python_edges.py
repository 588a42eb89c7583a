"""`ink-ls --acp` edges, with the Python SDK's client: bad input gets a specific JSON-RPC error
and the agent stays up; MCP servers are accepted; the model's to-do list (todo_write) becomes
a `plan` update; readonly mode refuses a change without asking; an image and an embedded
resource reach the model."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, image_block, spawn_agent_process, text_block
from acp.schema import AudioContentBlock, McpServerStdio

from tests.acp.conftest import SERVER
from tests.acp.test_python_client import CAPS, RecordingClient
from tests.fakes.model_server import FakeModelServer, text, tool

PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU"
    "5ErkJggg=="
)


async def test_bad_input_is_refused_and_the_agent_stays_up(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    client = RecordingClient(workspace, {})
    async with spawn_agent_process(client, *SERVER, env=acp_env, cwd=workspace) as (conn, proc):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=CAPS)

        async def refused(call: Any) -> RequestError:
            with pytest.raises(RequestError) as info:
                await call
            return info.value

        err = await refused(conn.new_session(cwd="relative/dir", mcp_servers=[]))
        assert err.code == -32602 and "absolute path" in str(err.data)
        err = await refused(conn.prompt(session_id="nope", prompt=[text_block("hi")]))
        assert err.code == -32602 and "unknown session 'nope'" in str(err.data)
        err = await refused(
            conn.load_session(cwd=str(workspace), session_id="missing-1", mcp_servers=[])
        )
        assert err.code == -32002
        mcp = McpServerStdio(name="files", command="/usr/bin/true", args=[], env=[])
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[mcp])
        sid = session.session_id
        err = await refused(conn.set_session_mode(session_id=sid, mode_id="yolo"))
        assert "the modes are ask, auto, readonly" in str(err.data)
        err = await refused(
            conn.prompt(
                session_id=sid,
                prompt=[AudioContentBlock(type="audio", data="AAAA", mime_type="audio/wav")],
            )
        )
        assert "'audio' is not supported" in str(err.data)
        # still serving
        model.push(text("still here"))
        done = await conn.prompt(session_id=sid, prompt=[text_block("hello")])
        assert done.stop_reason == "end_turn" and proc.returncode is None


async def test_plan_readonly_image_and_context(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    client = RecordingClient(workspace, {})
    model.push(
        tool(
            "todo_write",
            {
                "todos": [
                    {"content": "read app.py", "status": "completed"},
                    {"content": "change it", "status": "in_progress"},
                ]
            },
        ),
        tool("write", {"path": "new.txt", "content": "x\n"}),
        text("planned"),
    )
    async with spawn_agent_process(client, *SERVER, env=acp_env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=CAPS)
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="readonly")
        result = await asyncio.wait_for(
            conn.prompt(
                session_id=sid, prompt=[text_block("look at this"), image_block(PIXEL, "image/png")]
            ),
            30,
        )
        assert result.stop_reason == "end_turn"
        (plan,) = client.of("plan")
        assert [(e["content"], e["status"], e["priority"]) for e in plan["entries"]] == [
            ("read app.py", "completed", "medium"),
            ("change it", "in_progress", "medium"),
        ]
        assert [u["kind"] for u in client.of("tool_call")] == ["edit"]  # the plan is no call
        assert client.permissions == []  # readonly refuses without asking
        assert not (workspace / "new.txt").exists()
        assert any("readonly" in str(m.get("content")) for m in model.requests[2]["messages"])
        assert client.of("current_mode_update")[0]["currentModeId"] == "readonly"
        first = model.requests[0]["messages"]
        user = next(m for m in first if m["role"] == "user")
        assert "look at this" in str(user["content"])
        assert "image" in str(user["content"])  # the image (or its placeholder) went along


async def test_client_gone_mid_command_leaves_no_process(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    from tests.acp.conftest import cancel_turn, process_gone

    client = RecordingClient(workspace, {})
    model.push(*cancel_turn())
    async with spawn_agent_process(client, *SERVER, env=acp_env, cwd=workspace) as (conn, proc):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=CAPS)
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        running = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("sleep")]))
        pid_file = workspace / "sleep.pid"
        async with asyncio.timeout(30):
            while not (pid_file.is_file() and pid_file.read_text().strip()):
                await asyncio.sleep(0.05)
        pid = int(pid_file.read_text())
        assert proc.stdin is not None
        proc.stdin.close()  # the editor went away without a word
        assert await asyncio.wait_for(proc.wait(), 30) == 0
        running.cancel()
    async with asyncio.timeout(30):
        while not process_gone(pid):
            await asyncio.sleep(0.05)

"""ACP's `/rewind` through `ink-ls --acp` and the Python SDK's client: announced as an available
command, it lists the turns, restores files and conversation to before turn 2 (the edit, and a
command that created, deleted and chmodded files), and the next prompt continues from turn 1."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import ClientCapabilities

from tests.acp.conftest import SERVER
from tests.acp.test_python_client import RecordingClient
from tests.fakes.model_server import FakeModelServer, text, tool, tools

WAIT = 30.0


async def test_rewind_command(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    (workspace / "c.txt").write_text("keep me\n")
    (workspace / "run.sh").write_text("echo run\n")
    (workspace / "run.sh").chmod(0o644)
    model.push(
        tool("write", {"path": "a.py", "content": "print('one')\n"}),
        text("wrote a.py"),
        tools(
            ("edit", {"path": "a.py", "edits": [{"oldText": "one", "newText": "two"}]}),
            ("bash", {"command": "echo made > b.txt && rm c.txt && chmod +x run.sh"}),
        ),
        text("done"),
        text("continuing"),
    )
    client = RecordingClient(workspace, {})
    async with spawn_agent_process(client, *SERVER, env=acp_env, cwd=workspace) as (conn, _):
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
        )
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        announced = await client.wait_for(
            lambda u: u["sessionUpdate"] == "available_commands_update"
        )
        assert [c["name"] for c in announced["availableCommands"]] == ["compact", "clear", "rewind"]

        async def say(words: str) -> None:
            result = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[text_block(words)]), WAIT
            )
            assert result.stop_reason == "end_turn"

        await say("create a.py")
        await say("edit a.py and tidy")
        assert (workspace / "a.py").read_text() == "print('two')\n"
        before = len(client.of("agent_message_chunk"))
        await say("/rewind")
        listing = client.of("agent_message_chunk")[before]["content"]["text"]
        assert listing.startswith("1. create a.py — a.py +1 −0\n2. edit a.py and tidy — a.py +1 −1")
        await say("/rewind 2")
        answer = client.of("agent_message_chunk")[-1]["content"]["text"]
        assert (
            answer.startswith("Rewound to before 2 (both)") and "Undo it with /rewind 3." in answer
        )
        assert (workspace / "a.py").read_text() == "print('one')\n"
        assert not (workspace / "b.txt").exists()
        assert (workspace / "c.txt").read_text() == "keep me\n"
        assert stat.S_IMODE((workspace / "run.sh").stat().st_mode) == 0o644
        model_calls = len(model.requests)
        await say("what next?")
        users = [
            m["content"] for m in model.requests[model_calls]["messages"] if m["role"] == "user"
        ]
        assert [str(u) for u in users] == ["create a.py", "what next?"]
        await say("/rewind 3")  # the rewind's own entry: undone
        assert (workspace / "a.py").read_text() == "print('two')\n" and (
            workspace / "b.txt"
        ).exists()

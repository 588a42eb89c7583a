"""Prompt files over ACP (`ink-ls --acp`, the Python SDK's client): announced in
`available_commands_update` after `/rewind` with their description and argument hint, and
`/review src` reaches the model as the file's body with the arguments."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import ClientCapabilities

from tests.acp.conftest import SERVER
from tests.acp.test_python_client import RecordingClient
from tests.fakes.model_server import FakeModelServer, text

WAIT = 30.0


async def test_prompt_files_are_announced_and_expanded(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    acp_env["HOME"] = str(tmp_path / "home")
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review code\nargument-hint: <path>\n---\nReview $ARGUMENTS carefully."
    )
    (workspace / ".gemini" / "commands" / "git").mkdir(parents=True)
    (workspace / ".gemini" / "commands" / "git" / "commit.toml").write_text(
        'prompt = "Commit {{args}}"\n'
    )
    model.push(text("reviewed"))
    client = RecordingClient(workspace, {})
    async with spawn_agent_process(client, *SERVER, env=acp_env, cwd=workspace) as (conn, _):
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
        )
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        announced = await client.wait_for(
            lambda u: u["sessionUpdate"] == "available_commands_update"
        )
        by_name = {c["name"]: c for c in announced["availableCommands"]}
        assert list(by_name) == ["compact", "clear", "rewind", "git:commit", "review"]
        assert by_name["review"]["description"] == "Review code"
        assert by_name["review"]["input"] == {"hint": "<path>"}
        result = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("/review src")]), WAIT
        )
        assert result.stop_reason == "end_turn"
    [*_, last] = [m for m in model.requests[-1]["messages"] if m["role"] == "user"]
    content = last["content"]
    sent = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
    assert sent == "Review src carefully."

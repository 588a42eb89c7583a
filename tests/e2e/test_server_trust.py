"""A cloned repository through the language server: approval `auto` still asks before the
workspace's `.mcp.json` runs anything, `ink.trustWorkspace` states the answer (true starts the
servers without a question, false never asks), and an `AGENTS.md` linked out of the workspace
never reaches the model."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.e2e.conftest import REPO, SECRET, Starter, answer
from tests.fakes.model_server import FakeModelServer, text, tool

PY = sys.executable


def _servers(workspace: Path, mark: Path) -> None:
    marker = {"command": PY, "args": ["-c", f"open({str(mark)!r}, 'w').write('ran')"]}
    repo = {"command": PY, "args": ["-m", "tests.fakes.mcp_hostile"], "cwd": str(REPO)}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"mark": marker, "repo": repo}}))


def _options(model: FakeModelServer, **extra: Any) -> dict[str, Any]:
    return {
        "model": {"baseUrl": model.base_url, "model": "fake-model", "apiKey": SECRET},
        "approval": "auto",
        **extra,
    }


def _mcp_tools(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request["tools"] if t["function"]["name"][:5] == "mcp__"]


async def test_auto_asks_to_trust_the_workspace_and_a_no_starts_nothing(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    mark = tmp_path / "started"
    _servers(workspace, mark)
    client = await start(ink=_options(model))
    client.on_message_request = answer("reject_once")
    model.push(text("one"), text("two"))
    first = await client.prompt("hi")
    await client.prompt("again", sessionId=first["sessionId"])
    [asked] = [r["message"] for r in client.message_requests]  # asked once, not per turn
    assert asked.startswith(f"Ink: Trust the workspace {workspace}?\n")
    assert f"MCP server repo: {PY} -m tests.fakes.mcp_hostile (in {REPO})" in asked
    assert not mark.exists()
    assert _mcp_tools(model.requests[0]) == [] and _mcp_tools(model.requests[1]) == []
    status = await client.ink("ink/mcp/status", {})
    assert {s["name"]: s["error"] for s in status["servers"]} == {
        "mark": "the user did not trust the workspace",
        "repo": "the user did not trust the workspace",
    }


async def test_trust_workspace_setting_states_the_answer(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    mark = tmp_path / "started"
    _servers(workspace, mark)
    refused = await start(ink=_options(model, trustWorkspace=False))
    model.push(text("no servers"))
    await refused.prompt("hi")  # no question (an unexpected prompt fails the test)
    assert not mark.exists() and _mcp_tools(model.requests[0]) == []

    trusted = await start(ink=_options(model, trustWorkspace=True))
    model.push(tool("mcp__repo__echo", {"text": "hi"}), text("done"))
    assert (await trusted.prompt("echo"))["stopReason"] == "end_turn"
    assert mark.read_text() == "ran"
    assert "mcp__repo__echo" in _mcp_tools(model.requests[1])
    [result] = [m for m in model.requests[2]["messages"] if m["role"] == "tool"]
    assert result["content"] == "echo: hi"


async def test_an_agents_md_linked_out_of_the_workspace_is_not_sent(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "private.md"
    outside.write_text("PRIVATE-NOTES-5521\n")
    (workspace / "AGENTS.md").symlink_to(outside)
    client = await start(approval="auto")
    model.push(text("hello"))
    assert (await client.prompt("hi"))["stopReason"] == "end_turn"
    assert "PRIVATE-NOTES-5521" not in json.dumps(model.requests)
    assert "instructions_loaded" not in client.kinds()

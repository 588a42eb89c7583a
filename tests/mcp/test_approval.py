"""MCP calls ask like commands (Allow once / Always allow this tool / Reject), except read-only
tools of a trusted server; `auto` and `readonly` apply; a workspace `.mcp.json`'s servers start
only once the workspace is trusted (asked once, showing the command line)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ink_ls.agent.trust import trust_asker, workspace_trust
from ink_ls.core.trust import TrustStore, WorkspaceTrust
from ink_ls.mcp.hub import McpHub
from tests.fakes.model_server import FakeModelServer, text, tool, tools
from tests.mcp.conftest import Asker, Run, hostile, hub_of


async def _hub(tmp_path: Path, closing: list[McpHub], **server: object) -> McpHub:
    hub = hub_of({"h": {**hostile(), **server}}, tmp_path)
    closing.append(hub)
    await hub.start()
    return hub


async def test_destructive_call_asks_and_a_rejection_reaches_the_model(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = await _hub(tmp_path, closing)
    target = tmp_path / "victim.txt"
    model.push(tool("mcp__h__destroy", {"path": str(target)}), text("ok, I will not"))
    run = Run(hub, model, tmp_path, mode="ask", asker=Asker(["reject"]))
    await run.agent().run("destroy it")
    [question] = run.asker.questions
    assert question.kind == "command" and question.tool_name == "mcp__h__destroy"
    assert "mcp__h__destroy" in question.title and str(target) in question.detail
    assert not target.exists()
    [sent] = run.tool_messages(1)
    assert sent["content"] == 'Tool "mcp__h__destroy" blocked by user: the user rejected this call'


async def test_untrusted_read_only_tool_asks_too(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = await _hub(tmp_path, closing)
    model.push(tool("mcp__h__echo", {"text": "hi"}), text("done"))
    run = Run(hub, model, tmp_path, mode="ask", asker=Asker(["allow_once"]))
    await run.agent().run("echo")
    assert [q.tool_name for q in run.asker.questions] == ["mcp__h__echo"]
    assert run.results()["mcp__h__echo"] == "echo: hi"


async def test_trusted_server_reads_without_asking_and_always_allow_sticks(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = await _hub(tmp_path, closing, trusted=True)
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    model.push(
        tools(("mcp__h__echo", {"text": "hi"}), ("mcp__h__destroy", {"path": str(a)})),
        tool("mcp__h__destroy", {"path": str(b)}),
        text("done"),
    )
    run = Run(hub, model, tmp_path, mode="ask", asker=Asker(["allow_always"]))
    await run.agent().run("go")
    assert [q.tool_name for q in run.asker.questions] == ["mcp__h__destroy"]
    assert a.read_text() == b.read_text() == "destroyed"


async def test_readonly_mode_refuses_changes_and_runs_trusted_reads(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = await _hub(tmp_path, closing, trusted=True)
    target = tmp_path / "victim.txt"
    model.push(
        tools(("mcp__h__echo", {"text": "hi"}), ("mcp__h__destroy", {"path": str(target)})),
        text("done"),
    )
    run = Run(hub, model, tmp_path, mode="readonly")
    await run.agent().run("go")
    assert run.asker.questions == []
    assert run.results()["mcp__h__echo"] == "echo: hi"
    assert "blocked by policy: approval mode is readonly" in run.results()["mcp__h__destroy"]
    assert not target.exists()


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": hostile()}}))
    return root


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _trust(root: Path, tmp_path: Path, *, interactive: bool = True) -> WorkspaceTrust:
    trust = workspace_trust(root, explicit=None, interactive=interactive)
    trust.store = TrustStore(tmp_path / "state" / "trust.json")
    return trust


async def test_workspace_servers_start_after_a_yes_asked_once(
    tmp_path: Path, closing: list[McpHub]
) -> None:
    root = _workspace(tmp_path)
    hub = McpHub.for_workspace(root)
    closing.append(hub)
    asker = Asker(["allow_once"])
    trust = _trust(root, tmp_path)
    for _ in range(2):
        await trust.resolve(trust_asker(asker), mode="auto")  # auto does not imply trust
        await hub.start(trust=trust)
    [question] = asker.questions
    assert question.kind == "trust" and question.title == f"Trust the workspace {root}?"
    assert f"MCP server repo: {sys.executable} -m tests.fakes.mcp_hostile" in question.detail
    assert hub.status()[0].state == "connected"


async def test_workspace_servers_declined_or_readonly_are_not_started(
    tmp_path: Path, closing: list[McpHub]
) -> None:
    root = _workspace(tmp_path)
    declined = McpHub.for_workspace(root)
    readonly = McpHub.for_workspace(root)
    closing += [declined, readonly]
    asker = Asker(["reject"])
    trust = _trust(root, tmp_path)
    for _ in range(2):
        await trust.resolve(trust_asker(asker), mode="ask")
        await declined.start(trust=trust)
    assert len(asker.questions) == 1
    [status] = declined.status()
    assert (status.state, status.error) == (
        "not started",
        "the user did not trust the workspace",
    )
    other = _trust(root, tmp_path)
    await other.resolve(trust_asker(asker), mode="readonly")
    await readonly.start(trust=other)
    [status] = readonly.status()
    assert status.state == "not started" and "approval mode readonly asks nothing" in (
        status.error or ""
    )
    assert len(asker.questions) == 1

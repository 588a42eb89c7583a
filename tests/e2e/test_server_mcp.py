"""MCP servers through the language server: status, the tool list, calls with approvals, a
workspace `.mcp.json` started once the workspace is trusted (asked once, with the command line),
and no server process left after shutdown."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from tests.e2e.conftest import REPO, SECRET, InkClient, Starter, answer
from tests.fakes.model_server import FakeModelServer, text, tool, tools
from tests.unit.tools.proc_checks import running

PY = sys.executable


def _hostile(log: Path | None = None, *extra: str) -> dict[str, Any]:
    args = ["-m", "tests.fakes.mcp_hostile", *extra]
    if log is not None:
        args += ["--log", str(log)]
    return {"command": PY, "args": args, "cwd": str(REPO)}


def _delivered(client: InkClient) -> list[dict[str, Any]]:
    return [u for u in client.tool_updates() if u.get("phase") == "delivered"]


def _options(model: FakeModelServer, servers: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": {"baseUrl": model.base_url, "model": "fake-model", "apiKey": SECRET},
        "approval": "ask",
        "mcpServers": servers,
    }


async def test_status_tools_and_calls_with_approval(
    start: Starter, model: FakeModelServer, tmp_path: Path
) -> None:
    servers = {
        "time": {
            "command": PY,
            "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
            "trusted": True,
        },
        "h": _hostile(),
        "broken": _hostile(None, "--fail-start"),
    }
    client = await start(ink=_options(model, servers))
    status = await client.ink("ink/mcp/status", {})
    by_name = {s["name"]: s for s in status["servers"]}
    assert by_name["time"]["state"] == "connected" and by_name["time"]["origin"] == "editor"
    assert "mcp__time__get_current_time" in by_name["time"]["tools"]
    assert by_name["broken"]["state"] == "failed"
    assert "cannot open the database at /nowhere" in by_name["broken"]["error"]
    listed = {t["name"]: t for t in (await client.ink("ink/tools", {}))["tools"]}
    assert listed["mcp__time__get_current_time"]["server"] == "time"
    assert listed["mcp__time__get_current_time"]["concurrencySafe"] is True
    assert "server" not in listed["read"]

    target = tmp_path / "victim.txt"
    client.on_message_request = answer("reject_once")
    model.push(
        tools(
            ("mcp__time__get_current_time", {"timezone": "UTC"}),
            ("mcp__h__destroy", {"path": str(target)}),
        ),
        text("done"),
    )
    result = await client.prompt("time, then destroy")
    assert result["stopReason"] == "end_turn"
    [asked] = client.message_requests
    assert "mcp__h__destroy" in asked["message"]
    delivered = {u["toolCallId"]: u for u in _delivered(client)}
    time_call, destroy_call = delivered["call_1"], delivered["call_2"]
    assert time_call["status"] == "completed"
    assert '"timezone": "UTC"' in time_call["rawOutput"]["text"]
    assert destroy_call["status"] == "failed"
    assert destroy_call["rawOutput"]["text"] == (
        'Tool "mcp__h__destroy" blocked by user: the user rejected this call'
    )
    assert not target.exists()


async def test_workspace_servers_ask_once_and_stop_with_the_server(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    log = tmp_path / "repo.log"
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": _hostile(log)}}))
    client = await start(ink=_options(model, {}))
    status = await client.ink("ink/mcp/status", {})
    assert status["servers"][0]["state"] == "not started"
    assert status["servers"][0]["error"] == "waiting for the user to trust the workspace"

    client.on_message_request = answer("allow_once")
    model.push(
        tool("mcp__repo__echo", {"text": "one"}),
        text("first"),
        tool("mcp__repo__echo", {"text": "two"}),
        text("second"),
    )
    first = await client.prompt("echo one")
    second = await client.prompt("echo two", sessionId=first["sessionId"])
    assert second["stopReason"] == "end_turn"
    messages = [r["message"] for r in client.message_requests]
    [trust] = [m for m in messages if "Trust the workspace" in m]
    assert trust.startswith(f"Ink: Trust the workspace {workspace}?\n")
    assert f"MCP server repo: {PY} -m tests.fakes.mcp_hostile --log {log} (in {REPO})" in trust
    assert "Files: .mcp.json" in trust
    outputs = [u["rawOutput"]["text"] for u in _delivered(client)]
    assert outputs == ["echo: one", "echo: two"]

    pids = {e["pid"] for e in map(json.loads, log.read_text().splitlines())}
    assert len(pids) == 1 and all(running(p) for p in pids)
    await client.shutdown_session()
    assert not any(running(p) for p in pids)


async def test_a_server_that_ignores_its_stdin_closing_dies_with_ink_ls(
    start: Starter, model: FakeModelServer, tmp_path: Path
) -> None:
    log = tmp_path / "linger.log"
    client = await start(
        ink=_options(model, {"stay": {**_hostile(log, "--linger"), "trusted": True}})
    )
    model.push(tool("mcp__stay__echo", {"text": "hi"}), text("ok"))
    assert (await client.prompt("echo"))["stopReason"] == "end_turn"
    [pid] = {e["pid"] for e in map(json.loads, log.read_text().splitlines())}
    try:
        assert running(pid)
        server = client._server
        assert server is not None
        server.send_signal(signal.SIGTERM)
        await asyncio.wait_for(server.wait(), 20)
        deadline = time.monotonic() + 10
        while running(pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # SIGKILL is asynchronous: wait for the process to go
        assert not running(pid)
    finally:
        if running(pid):
            os.kill(pid, signal.SIGKILL)

"""Registry MCP servers as tools of the agent: mcp-server-time and mcp-server-git (PyPI, stdio),
server-everything (npm; stdio and streamable HTTP), driven by a scripted loopback model."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from ink_ls.core.signal import CancelController
from ink_ls.mcp.hub import McpHub
from tests.fakes.model_server import FakeModelServer, text, tool, tools
from tests.mcp.conftest import (
    Run,
    everything_stdio,
    git_server,
    hub_of,
    make_repo,
    time_server,
)


async def test_time_and_git_tools_answer_for_real(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    repo = make_repo(tmp_path / "repo")
    hub = hub_of({"time": time_server(), "git": git_server(repo)}, tmp_path)
    closing.append(hub)
    await hub.start()
    assert {s.name: s.state for s in hub.status()} == {"time": "connected", "git": "connected"}
    model.push(
        tools(
            ("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"}),
            ("mcp__git__git_log", {"repo_path": str(repo), "max_count": 5}),
        ),
        text("It is morning in Tokyo and the last commit added the notes."),
    )
    run = Run(hub, model, tmp_path)
    result = await run.agent().run("what time is it in Tokyo, and what was the last commit?")

    assert result.stop_reason == "completed"
    sent = {m["tool_call_id"]: m["content"] for m in run.tool_messages(1)}
    assert len(sent) == 2
    clock, log = run.results()["mcp__time__get_current_time"], run.results()["mcp__git__git_log"]
    now = json.loads(clock)
    assert now["timezone"] == "Asia/Tokyo"
    shown = datetime.fromisoformat(now["datetime"])
    assert abs((shown - datetime.now(ZoneInfo("Asia/Tokyo"))).total_seconds()) < 120
    assert "Add the notes" in log
    assert any("Asia/Tokyo" in c for c in sent.values())
    assert any("Add the notes" in c for c in sent.values())
    names = [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert "mcp__git__git_commit" in names and "mcp__time__convert_time" in names


async def test_the_model_gets_the_servers_schema_as_given(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = hub_of({"time": time_server()}, tmp_path)
    closing.append(hub)
    await hub.start()
    remote = {t.name: t for t in hub.servers["time"].tools}["convert_time"]
    model.push(text("ok"))
    await Run(hub, model, tmp_path).agent().run("hi")
    sent = {t["function"]["name"]: t["function"] for t in model.requests[0]["tools"]}
    assert sent["mcp__time__convert_time"]["parameters"] == remote.input_schema


async def test_long_running_call_is_cancelled_with_progress_shown(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = hub_of({"everything": everything_stdio()}, tmp_path)
    closing.append(hub)
    await hub.start()
    name = "mcp__everything__trigger-long-running-operation"
    model.push(tool(name, {"duration": 60, "steps": 120}))
    run = Run(hub, model, tmp_path, grace=5.0)
    controller = CancelController()
    agent = run.agent()
    task = asyncio.create_task(agent.run("run the long operation", controller.signal))
    progress = await run.wait_event("tool_progress")
    assert progress.tool_name == name and progress.message.startswith("1/120")
    cancelled_at = time.monotonic()
    controller.cancel("cancelled by the user")
    result = await asyncio.wait_for(task, 10)
    ended = time.monotonic() - cancelled_at

    assert result.stop_reason == "aborted"
    assert ended < run.grace
    assert "was told to stop the call (notifications/cancelled)" in run.results()[name]
    # the server is still usable after the cancel
    model.push(tool("mcp__everything__echo", {"message": "still here"}), text("done"))
    run2 = Run(hub, model, tmp_path)
    await run2.agent().run("echo")
    assert run2.results()["mcp__everything__echo"] == "Echo: still here"


async def test_streamable_http_server(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub], everything_http: str
) -> None:
    hub = hub_of({"web": {"url": everything_http}}, tmp_path)
    closing.append(hub)
    await hub.start()
    [status] = hub.status()
    assert (status.state, status.transport) == ("connected", "http"), status.error
    model.push(
        tools(
            ("mcp__web__get-sum", {"a": 2, "b": 40}),
            ("mcp__web__get-tiny-image", {}),
            ("mcp__web__get-resource-links", {"count": 2}),
            ("mcp__web__get-resource-reference", {"resourceType": "Text", "resourceId": 1}),
        ),
        text("42"),
    )
    run = Run(hub, model, tmp_path)
    await run.agent().run("add")
    results = run.results()
    assert "42" in results["mcp__web__get-sum"]
    # resource links and an embedded resource reach the model as text
    assert (
        "[resource link Text Resource 2: demo://resource/dynamic/text/2 (text/plain"
        in results["mcp__web__get-resource-links"]
    )
    embedded = results["mcp__web__get-resource-reference"]
    assert "[resource demo://resource/dynamic/text/1]\nResource 1: This is a plaintext" in embedded
    [image_end] = [e for e in run.of("tool_end") if e.tool_name == "mcp__web__get-tiny-image"]
    assert any(b.type == "image" and b.mime_type == "image/png" for b in image_end.content)

"""A hostile MCP server cannot break the agent: crashes, bad schemas, giant results, odd and
colliding names, ignored cancels, a server that never starts; and two servers' read-only
tools run at the same time."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from ink_ls.core.signal import CancelController
from ink_ls.mcp.hub import McpHub
from tests.fakes.model_server import FakeModelServer, text, tool, tools
from tests.mcp.conftest import Run, hostile, hub_of, read_log, time_server


async def _hub(tmp_path: Path, closing: list[McpHub], **servers: dict[str, object]) -> McpHub:
    hub = hub_of(servers, tmp_path, start_timeout=20.0)
    closing.append(hub)
    await hub.start()
    return hub


async def test_read_only_tools_of_two_servers_overlap(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = await _hub(tmp_path, closing, a=hostile(), b=hostile())
    model.push(
        tools(("mcp__a__wait", {"seconds": 1.0}), ("mcp__b__wait", {"seconds": 1.0})),
        text("both waited"),
    )
    run = Run(hub, model, tmp_path)
    await run.agent().run("wait on both")
    a = json.loads(run.results()["mcp__a__wait"])
    b = json.loads(run.results()["mcp__b__wait"])
    # the servers' own clocks: each started before the other ended
    assert a["start"] < b["end"] and b["start"] < a["end"]
    kinds = [e.type for _, e in run.events if e.type in ("tool_running", "tool_settled")]
    assert kinds[:2] == ["tool_running", "tool_running"]


async def test_crash_mid_call_is_a_clear_error_and_the_next_call_works(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = await _hub(tmp_path, closing, h=hostile())
    marker = str(tmp_path / "crashed")
    model.push(
        tool("mcp__h__crash_once", {"marker": marker}),
        tool("mcp__h__crash_once", {"marker": marker}),
        text("recovered"),
    )
    run = Run(hub, model, tmp_path)
    result = await run.agent().run("crash it")
    assert result.stop_reason == "completed"
    first, second = [e for e in run.of("tool_end")]
    assert first.is_error
    said = first.content[0].text
    assert 'MCP server "h" is not available: the server stopped during the call' in said
    assert "crashing on purpose" in said and "started again on the next call" in said
    assert not second.is_error and second.content[0].text == "survived"
    assert hub.status()[0].state == "connected"


async def test_server_that_never_starts_shows_why_and_the_session_works(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = await _hub(
        tmp_path,
        closing,
        broken=hostile(None, "--fail-start"),
        gone={"command": str(tmp_path / "no-such-program")},
        time=time_server(),
    )
    status = {s.name: s for s in hub.status()}
    assert status["broken"].state == "failed"
    assert "exited before it was ready" in (status["broken"].error or "")
    assert "cannot open the database at /nowhere" in (status["broken"].error or "")
    assert status["gone"].state == "failed" and "no-such-program" in (status["gone"].error or "")
    assert status["time"].state == "connected" and status["time"].tools
    model.push(tool("mcp__time__get_current_time", {"timezone": "UTC"}), text("fine"))
    run = Run(hub, model, tmp_path)
    result = await run.agent().run("time?")
    assert result.stop_reason == "completed"
    assert '"timezone": "UTC"' in run.results()["mcp__time__get_current_time"]
    sent = [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert not any(n.startswith("mcp__broken__") for n in sent)


async def test_bad_schema_odd_and_colliding_names_and_bad_arguments(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = await _hub(tmp_path, closing, h=hostile())
    [status] = hub.status()
    names = status.tools
    assert "mcp__h__bad_schema" not in names
    assert any(s.startswith("bad_schema: its input schema is invalid") for s in status.skipped)
    assert names.count("mcp__h__hello_world") == 1
    assert any(
        s.startswith("hello_world: its name becomes mcp__h__hello_world, which another")
        for s in status.skipped
    )
    long = [n for n in names if n.startswith("mcp__h__xxx")]
    assert len(long) == 1 and len(long[0]) == 64
    assert all(
        set(n) <= set("abcdefghijklmnopqrstuvwxyz_-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for n in names
    )
    model.push(tool("mcp__h__echo", {"text": "x" * 60, "extra": 1}), text("ok"))
    run = Run(hub, model, tmp_path)
    await run.agent().run("echo")
    said = run.results()["mcp__h__echo"]
    assert said.startswith("Error: invalid arguments for mcp__h__echo — ")
    assert "/text: 'xxxx" in said and "is too long" in said
    assert "(root): Additional properties are not allowed ('extra' was unexpected)" in said
    assert said.endswith(". Fix the arguments and retry.")
    assert not any(e["event"] == "call" for e in read_log(tmp_path / "none.log"))


async def test_giant_result_is_capped_with_the_full_text_in_a_file(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = await _hub(tmp_path, closing, h=hostile())
    model.push(tool("mcp__h__giant", {"lines": 200_000}), text("big"))
    run = Run(hub, model, tmp_path)
    await run.agent().run("giant")
    said = run.results()["mcp__h__giant"]
    assert len(said.encode()) < 60 * 1024
    assert "[output cut: showing lines 1-500 of 200000 (500 line limit). Full output: " in said
    path = Path(said.rsplit("Full output: ", 1)[1].split(";")[0])
    saved = path.read_text()
    assert saved.splitlines()[-1] == "line 199999"
    path.unlink()


async def test_cancel_reaches_the_server_and_a_deaf_server_cannot_hold_the_turn(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    log = tmp_path / "h.log"
    hub = await _hub(tmp_path, closing, h=hostile(log))
    for name in ("long", "stubborn"):
        model.push(tool(f"mcp__h__{name}", {"seconds": 30}))
        run = Run(hub, model, tmp_path, grace=5.0)
        controller = CancelController()
        task = asyncio.create_task(run.agent().run(name, controller.signal))
        await run.wait_event("tool_progress")
        began = time.monotonic()
        controller.cancel("cancelled by the user")
        result = await asyncio.wait_for(task, 10)
        assert result.stop_reason == "aborted"
        assert time.monotonic() - began < run.grace
        assert "told to stop the call (notifications/cancelled)" in run.results()[f"mcp__h__{name}"]
    events = [(e["event"], e["tool"]) for e in read_log(log)]
    assert ("cancelled", "long") in events  # the server was told and stopped
    assert ("cancelled", "stubborn") not in events  # it ignored the cancel; we did not wait


async def test_tool_list_change_reaches_the_next_model_request(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    hub = await _hub(tmp_path, closing, h=hostile())
    model.push(tool("mcp__h__grow", {}), tool("mcp__h__extra", {}), text("done"))
    run = Run(hub, model, tmp_path)
    await run.agent().run("grow")
    before = [t["function"]["name"] for t in model.requests[0]["tools"]]
    after = [t["function"]["name"] for t in model.requests[1]["tools"]]
    assert "mcp__h__extra" not in before and "mcp__h__extra" in after
    assert run.results()["mcp__h__extra"] == "extra tool here"


async def test_a_call_past_its_timeout_is_cancelled_and_reported(
    tmp_path: Path, model: FakeModelServer, closing: list[McpHub]
) -> None:
    log = tmp_path / "h.log"
    hub = await _hub(tmp_path, closing, h=hostile(log))
    hub.servers["h"].call_timeout = 1.0
    model.push(tool("mcp__h__long", {"seconds": 30}), text("gave up"))
    run = Run(hub, model, tmp_path)
    began = time.monotonic()
    result = await run.agent().run("long")
    assert result.stop_reason == "completed"
    assert time.monotonic() - began < 15
    said = run.results()["mcp__h__long"]
    assert said.startswith(
        'Error: MCP server "h" gave no result (no answer within 1s); the call was cancelled'
    )
    async with asyncio.timeout(10):  # the server was told
        while ("cancelled", "long") not in [(e["event"], e["tool"]) for e in read_log(log)]:
            await asyncio.sleep(0.05)

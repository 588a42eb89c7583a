"""What the editor sees of a turn: progress, the four tool events, call-order delivery, and the
specified error results the model gets for bad calls."""

from __future__ import annotations

import asyncio
import threading

from lsprotocol import types

from tests.e2e.conftest import Starter, tool_results
from tests.fakes.model_server import FakeModelServer, Reply, text, tool, tools


async def test_progress_begins_reports_and_ends_around_a_turn(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tool("read", {"path": "README.md"}), text("done"))
    client = await start()
    first = await client.prompt("read README.md and tell me how to start the project")

    assert len(client.progress_reports) == 1  # one fresh token, created by the server
    ((token, values),) = client.progress_reports.items()
    assert token == f"ink-{first['sessionId']}-t1"  # protocol.md: ink-<sessionId>-<turnId>
    begin, *reports, end = values
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert (begin.title, begin.cancellable) == ("Ink", True)
    assert begin.message == "read README.md and tell me how to start the project"
    assert [r.message for r in reports] == [
        "read README.md — 0 of 1 done",
        "read README.md — 1 of 1 done",
    ]
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message == "done"

    # a second turn gets a new token
    model.push(text("again"))
    second = await client.prompt("and again", sessionId=first["sessionId"])
    assert second["turnId"] == "t2"
    assert list(client.progress_reports)[1] == f"ink-{first['sessionId']}-t2"


async def test_progress_uses_the_clients_token_when_given(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(text("hi"))
    client = await start()
    client.progress_reports["mine-1"] = []
    await client.prompt("hello", workDoneToken="mine-1")
    assert list(client.progress_reports) == ["mine-1"]
    kinds = [type(v).__name__ for v in client.progress_reports["mine-1"]]
    assert kinds == ["WorkDoneProgressBegin", "WorkDoneProgressEnd"]


async def test_four_tool_events_and_call_order_delivery(
    start: Starter, model: FakeModelServer
) -> None:
    # call_1 (task) waits on a sub-agent reply the test holds back until call_2 (read) settled
    release = threading.Event()
    model.push(
        tools(
            ("task", {"prompt": "say hi", "description": "greet"}), ("read", {"path": "README.md"})
        ),
        Reply(text="sub-agent says hi", gate=release),
        text("all done"),
    )
    client = await start()
    running = asyncio.ensure_future(client.prompt("do two things"))
    await client.wait_for(
        lambda: any(u.get("phase") == "settled" for u in client.tool_updates("call_2"))
    )
    release.set()
    result = await asyncio.wait_for(running, 30)
    assert result["stopReason"] == "end_turn"

    steps = [
        (u["toolCallId"], u.get("phase", "registered"), u["status"]) for u in client.tool_updates()
    ]
    for call in ("call_1", "call_2"):
        mine = [(phase, status) for cid, phase, status in steps if cid == call]
        assert mine == [
            ("registered", "pending"),
            ("running", "in_progress"),
            ("settled", "completed"),
            ("delivered", "completed"),
        ]
    settled = [cid for cid, phase, _ in steps if phase == "settled"]
    delivered = [cid for cid, phase, _ in steps if phase == "delivered"]
    assert settled == ["call_2", "call_1"]  # completion order
    assert delivered == ["call_1", "call_2"]  # call order
    # the read's result waited for the slow task: settled long before delivered
    assert steps.index(("call_2", "settled", "completed")) < steps.index(
        ("call_1", "settled", "completed")
    )
    titles = {
        u["toolCallId"]: (u["title"], u["kind"])
        for u in client.tool_updates()
        if u["sessionUpdate"] == "tool_call"
    }
    assert titles == {"call_1": ("task: greet", "think"), "call_2": ("read README.md", "read")}
    delivered_read = [u for u in client.tool_updates("call_2") if u.get("phase") == "delivered"]
    assert "npm start" in delivered_read[0]["content"][0]["content"]["text"]
    assert delivered_read[0]["rawOutput"]["isError"] is False


async def test_bad_arguments_and_unknown_tool_reach_the_model_as_errors(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tools(("read", {"path": 123}), ("frobnicate", {})), text("sorry"))
    client = await start()
    result = await client.prompt("read it")
    assert result["stopReason"] == "end_turn"
    second = model.wait_requests(2)[1]
    invalid, unknown = tool_results(second)
    assert invalid == (
        "Error: invalid arguments for read — /path: Input should be a valid string. "
        "Fix the arguments and retry."
    )
    assert unknown.startswith('Error: unknown tool "frobnicate". Available tools: ')
    for name in ("read", "bash", "edit", "write", "grep", "find", "ls", "task"):
        assert name in unknown
    failed = [u for u in client.tool_updates() if u.get("phase") == "delivered"]
    assert [u["status"] for u in failed] == ["failed", "failed"]

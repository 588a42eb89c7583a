"""Dispatch while streaming, through the server: the fake model holds the rest of its reply
until the test has seen the calls running (`tool_call_update` phase `running`)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from tests.e2e.conftest import WAIT, InkClient, Starter, answer, tool_results
from tests.fakes.model_server import FakeModelServer, Reply, text

TRUNCATED = "the response hit the output token limit"


def phases(client: InkClient, call_id: str) -> list[str]:
    return [
        u.get("phase", "registered") if u["sessionUpdate"] == "tool_call_update" else "registered"
        for u in client.tool_updates(call_id)
    ]


def running(client: InkClient, *ids: str) -> bool:
    return all("running" in phases(client, i) for i in ids)


def held(calls: list[tuple[str, Any]], ids: list[str], after: int, **kw: Any) -> Reply:
    return Reply(tool_calls=calls, call_ids=ids, hold=threading.Event(), hold_after=after, **kw)


async def prompt(client: InkClient, words: str) -> asyncio.Future[dict[str, Any]]:
    return asyncio.ensure_future(client.prompt(words))


def delivered(client: InkClient) -> list[tuple[str, str]]:
    return [
        (u["toolCallId"], u["status"])
        for u in client.tool_updates()
        if u.get("phase") == "delivered"
    ]


async def test_greps_run_while_the_reply_streams_and_arrive_in_call_order(
    start: Starter, model: FakeModelServer
) -> None:
    ids = ["g1", "g2", "g3"]
    reply = held([("grep", {"pattern": p}) for p in ("Demo", "npm", "start")], ids, 3)
    model.push(reply, text("found them"))
    client = await start()
    turn = await prompt(client, "find things")
    # all three run before the model has finished its reply
    await client.wait_for(lambda: running(client, *ids))
    assert reply.hold is not None and not reply.hold.is_set()
    assert "usage_update" not in client.kinds()  # the reply has not ended
    assert not delivered(client)
    reply.hold.set()
    result = await asyncio.wait_for(turn, WAIT)
    assert (result["stopReason"], result["text"]) == ("end_turn", "found them")
    assert delivered(client) == [(i, "completed") for i in ids]
    kinds = client.kinds()
    first_delivered = next(
        n for n, u in enumerate(client.updates) if u["update"].get("phase") == "delivered"
    )
    assert kinds.index("usage_update") < first_delivered
    assert "Start the project with `npm start`." in tool_results(model.requests[1])[1]


async def test_a_reply_cut_by_the_token_limit_after_two_started_calls_refuses_all(
    start: Starter, model: FakeModelServer
) -> None:
    ids = ["r1", "r2", "r3"]
    calls = [
        ("read", {"path": "README.md"}),
        ("grep", {"pattern": "npm"}),
        ("read", '{"path": "READ'),
    ]
    reply = held(calls, ids, 2, finish_reason="length")
    model.push(reply, text("sorry"))
    client = await start()
    turn = await prompt(client, "read it")
    await client.wait_for(lambda: running(client, "r1", "r2"))  # the third is not complete
    assert not client.tool_updates("r3")
    assert reply.hold is not None
    reply.hold.set()
    result = await asyncio.wait_for(turn, WAIT)
    assert result["stopReason"] == "end_turn"
    assert delivered(client) == [(i, "failed") for i in ids]
    sent = tool_results(model.requests[1])
    assert len(sent) == 3 and all(TRUNCATED in t for t in sent)


async def test_a_cancel_mid_stream_cancels_the_started_task(
    start: Starter, model: FakeModelServer
) -> None:
    reply = held(
        [
            ("task", {"description": "look around", "prompt": "look"}),
            ("bash", {"command": "echo never"}),
        ],
        ["t1", "b1"],
        2,
    )
    # the sub-agent's own request hangs until the client goes away
    model.push(reply, Reply(text="thinking", hang=True))
    client = await start(approval="auto")
    turn = await prompt(client, "delegate")
    await client.wait_for(lambda: running(client, "t1"))
    await asyncio.to_thread(model.wait_requests, 2)  # the sub-agent is talking to the model
    session_id = client.updates[0]["sessionId"]
    assert await client.ink("ink/session/cancel", {"sessionId": session_id}) is None
    result = await asyncio.wait_for(turn, WAIT)
    assert result["stopReason"] == "cancelled"
    assert delivered(client) == [("t1", "cancelled")]
    assert not client.tool_updates("b1")  # a serial call never starts early
    assert reply.hold is not None
    reply.hold.set()
    # the started task is in history with its one result; the next prompt shows it
    model.push(text("ok"))
    follow = await client.prompt("again", sessionId=session_id)
    assert follow["stopReason"] == "end_turn"
    messages = model.requests[-1]["messages"]
    calls = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    assert calls == ["t1"]
    assert len(tool_results(model.requests[-1])) == 1


async def test_an_invalid_call_between_two_valid_ones(
    start: Starter, model: FakeModelServer
) -> None:
    ids = ["v1", "bad", "v2"]
    calls = [("read", {"path": "README.md"}), ("read", {"path": 5}), ("grep", {"pattern": "x"})]
    reply = held(calls, ids, 3)
    model.push(reply, text("done"))
    client = await start()
    turn = await prompt(client, "read")
    await client.wait_for(lambda: running(client, "v1", "v2"))
    assert reply.hold is not None
    reply.hold.set()
    assert (await asyncio.wait_for(turn, WAIT))["stopReason"] == "end_turn"
    assert delivered(client) == [("v1", "completed"), ("bad", "failed"), ("v2", "completed")]
    assert "running" not in phases(client, "bad")
    sent = tool_results(model.requests[1])
    assert sent[1].startswith("Error: invalid arguments for read — /path:")


async def test_a_call_needing_approval_does_not_start_early(
    start: Starter, model: FakeModelServer
) -> None:
    ids = ["in1", "out", "in2"]
    calls = [
        ("read", {"path": "README.md"}),
        ("read", {"path": "/etc/hostname"}),
        ("grep", {"pattern": "npm"}),
    ]
    reply = held(calls, ids, 3)
    model.push(reply, text("done"))
    client = await start(approval="ask")
    client.on_message_request = answer("allow_once")
    turn = await prompt(client, "read")
    await client.wait_for(lambda: running(client, "in1"))
    await asyncio.to_thread(model.wait_holding)
    await client.poke()
    # the outside read asks first: neither it nor anything after it starts before the end
    assert not client.tool_updates("out") and not client.tool_updates("in2")
    assert not client.message_requests
    assert reply.hold is not None
    reply.hold.set()
    assert (await asyncio.wait_for(turn, WAIT))["stopReason"] == "end_turn"
    assert len(client.message_requests) == 1
    assert delivered(client) == [(i, "completed") for i in ids]

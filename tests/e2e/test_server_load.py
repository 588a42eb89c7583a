"""`ink/session/load`: a stored or live session's conversation replayed as the update kinds a
live turn uses (turn id `replay`), in history order, before the answer; refusals for unknown
and busy sessions."""

from __future__ import annotations

from typing import Any

from ink_ls.protocol import methods
from ink_ls.protocol.errors import InkErrorCode
from tests.e2e.conftest import Starter, start_sleeping
from tests.e2e.test_server_protocol import rpc_error
from tests.fakes.model_server import FakeModelServer, text, tool


def _shown(update: dict[str, Any]) -> tuple[Any, ...]:
    """What a conversation view draws from one replayed update."""
    body = update["update"]
    kind = body["sessionUpdate"]
    if kind in ("user_message_chunk", "agent_message_chunk"):
        return (kind, body["content"]["text"], body.get("context"))
    if kind == "tool_call":
        return (kind, body["toolCallId"], body["title"], body["kind"], body["rawInput"])
    if kind == "tool_call_update":
        first = body["content"][0]["content"]["text"]
        return (kind, body["toolCallId"], body["phase"], body["status"], first.splitlines()[0])
    if kind == "usage_update":
        return (kind, body["inputTokens"], body["outputTokens"])
    return (kind,)


async def test_load_replays_a_stored_session_in_history_order(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(
        tool("read", {"path": "README.md"}),
        text("Run `npm start`."),
        tool("read", {"path": "missing.txt"}),
        text("it failed"),
    )
    client = await start(approval="auto")
    uri = client.open("README.md", "# Demo\n\nStart the project with `npm start`.\n")
    first = await client.prompt(
        "how do I start it?",
        textDocument={"uri": uri},
        range={"start": {"line": 2, "character": 0}, "end": {"line": 3, "character": 0}},
    )
    session_id = first["sessionId"]
    await client.prompt("now fail", sessionId=session_id)
    await client.shutdown_session()

    again = await start(approval="auto")
    result = await again.ink(methods.SESSION_LOAD, {"sessionId": session_id})
    assert result == {"sessionId": session_id, "title": "how do I start it?", "messageCount": 8}
    assert {(u["sessionId"], u["turnId"]) for u in again.updates} == {(session_id, "replay")}
    assert [_shown(u) for u in again.updates] == [
        (
            "user_message_chunk",
            "how do I start it?",
            {"path": "README.md", "firstLine": 3, "lastLine": 3},
        ),
        ("tool_call", "call_1", "read README.md", "read", {"path": "README.md"}),
        ("tool_call_update", "call_1", "delivered", "completed", "# Demo"),
        ("agent_message_chunk", "Run `npm start`.", None),
        ("user_message_chunk", "now fail", None),
        ("tool_call", "call_2", "read missing.txt", "read", {"path": "missing.txt"}),
        (
            "tool_call_update",
            "call_2",
            "delivered",
            "failed",
            "Error reading missing.txt: No such file or directory",
        ),
        ("agent_message_chunk", "it failed", None),
        ("usage_update", 40, 20),
    ]

    # the loaded session goes on where it stopped
    model.push(text("three"))
    third = await again.prompt("third", sessionId=session_id)
    assert (third["turnId"], third["text"]) == ("t3", "three")


async def test_load_of_a_live_session_and_refusals(start: Starter, model: FakeModelServer) -> None:
    model.push(text("hello there"))
    client = await start(approval="auto")
    first = await client.prompt("say hello")
    before = len(client.updates)
    result = await client.ink(methods.SESSION_LOAD, {"sessionId": first["sessionId"]})
    assert result["messageCount"] == 2
    assert [_shown(u) for u in client.updates[before:]] == [
        ("user_message_chunk", "say hello", None),
        ("agent_message_chunk", "hello there", None),
        ("usage_update", 10, 5),
    ]

    error = await rpc_error(client.ink(methods.SESSION_LOAD, {"sessionId": "nope"}))
    assert (error.code, error.message) == (
        InkErrorCode.SESSION_NOT_FOUND,
        "session not found: nope",
    )
    error = await rpc_error(client.ink(methods.SESSION_LOAD, {}))
    assert error.code == -32602

    task, busy_id = await start_sleeping(client, model, "4301.5")
    error = await rpc_error(client.ink(methods.SESSION_LOAD, {"sessionId": busy_id}))
    assert error.code == InkErrorCode.SESSION_BUSY
    assert error.message.startswith(f"session busy: {busy_id}")
    await client.ink(methods.SESSION_CANCEL, {"sessionId": busy_id})
    assert (await task)["stopReason"] == "cancelled"

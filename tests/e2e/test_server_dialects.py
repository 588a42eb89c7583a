"""The language server against each server's own stream dialect, replayed byte for byte: the
read runs with the right arguments, the follow-up carries what the provider requires, the
reasoning arrives as `thinking` updates, the answer is exact; in-stream errors fail the turn
with the server's message as an `error` update."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import InkClient, Starter
from tests.fakes.dialects import (
    ANSWER,
    IN_STREAM_ERRORS,
    NOTES,
    Dialect,
    all_dialects,
)
from tests.fakes.model_server import FakeModelServer, Reply

DIALECTS = all_dialects()


def thinking(client: InkClient) -> str:
    return "".join(
        u["update"]["content"]["text"]
        for u in client.updates
        if u["update"]["sessionUpdate"] == "thinking"
    )


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.name for d in DIALECTS])
async def test_a_tool_turn_in_each_dialect(
    dialect: Dialect, start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text(NOTES)
    model.push(*dialect.replies())
    client = await start()
    result = await client.prompt("what do the notes say?")
    assert (result["stopReason"], result["text"]) == ("end_turn", ANSWER)
    [call] = [u for u in client.tool_updates() if u["sessionUpdate"] == "tool_call"]
    assert (call["title"], call["rawInput"]) == ("read notes.txt", {"path": "notes.txt"})
    delivered = [u for u in client.tool_updates() if u.get("phase") == "delivered"]
    assert delivered[0]["status"] == "completed"
    assert "ship on Friday" in delivered[0]["rawOutput"]["text"]
    assert thinking(client) == dialect.thinking
    kinds = client.kinds()
    if dialect.thinking:  # the reasoning comes before the call and the answer
        assert kinds.index("thinking") < kinds.index("tool_call")
    assert len(model.requests) == 2 and dialect.required(model.requests[1]) is None


@pytest.mark.parametrize("form", list(IN_STREAM_ERRORS), ids=list(IN_STREAM_ERRORS))
async def test_an_error_inside_the_stream_fails_the_turn(
    form: str, start: Starter, model: FakeModelServer
) -> None:
    model.push(Reply(raw=IN_STREAM_ERRORS[form]))
    client = await start()
    result = await client.prompt("what do the notes say?")
    assert result["stopReason"] == "error"
    errors = [
        u["update"]["message"] for u in client.updates if u["update"]["sessionUpdate"] == "error"
    ]
    assert errors == ["the model endpoint reported an error: the slot crashed mid-reply"]

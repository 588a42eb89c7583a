"""Each server's stream dialect through the real client on loopback: the call, the reasoning
shown, and a follow-up request body the provider accepts (its own check, `Dialect.required`)."""

from __future__ import annotations

import pytest

from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import TextBlock, ToolResultEntry, ToolResultMessage, user_text
from ink_ls.core.signal import NEVER
from ink_ls.model.base import ModelRequest, ThinkingDelta
from ink_ls.model.convert import request_body
from tests.fakes.dialects import ANSWER, ARGS, NOTES, Dialect, all_dialects
from tests.fakes.model_server import FakeModelServer, Reply
from tests.unit.model.conftest import MakeClient

DIALECTS = all_dialects()


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.name for d in DIALECTS])
async def test_a_tool_turn_and_its_follow_up(
    dialect: Dialect, server: FakeModelServer, make_client: MakeClient
) -> None:
    client = make_client()
    server.push(Reply(raw=dialect.tool_turn), Reply(raw=dialect.answer_turn))
    history = [user_text("what do the notes say?")]
    thinking: list[str] = []
    async for item in client.stream(ModelRequest("sys", list(history)), NEVER):
        if isinstance(item, ThinkingDelta):
            thinking.append(item.text)
        final = item
    message = final.message  # type: ignore[attr-defined]
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("read", ARGS)]
    assert message.stop_reason == "tool_use"
    assert "".join(thinking) == dialect.thinking == (message.thinking or "")
    results = ToolResultMessage(
        results=[
            ToolResultEntry(
                tool_call_id=message.tool_calls[0].id,
                tool_name="read",
                content=[TextBlock(text=NOTES)],
            )
        ]
    )
    body = request_body(ModelRequest("sys", [*history, message, results]), ModelSettings(model="m"))
    assert dialect.required(body) is None
    async for item in client.stream(ModelRequest("sys", list(history)), NEVER):
        final = item
    assert final.message.text == ANSWER  # type: ignore[attr-defined]

"""The model client says when a request has gone out (the endpoint's answer began), before
anything of the reply: work that can wait (a turn's checkpoint snapshot) starts there."""

from __future__ import annotations

import pytest

from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import user_text
from ink_ls.core.signal import NEVER
from ink_ls.model.base import ModelError, ModelRequest, ReplyDone, StreamItem, TextDelta
from ink_ls.model.providers import make_client
from tests.fakes.model_server import FakeModelServer, Reply, text


async def test_on_sent_is_called_once_before_the_reply() -> None:
    with FakeModelServer() as server:
        server.default = lambda payload: text("hello")
        client = make_client(ModelSettings(base_url=server.base_url, model="m"))
        order: list[str] = []
        request = ModelRequest(
            system="s", messages=[user_text("hi")], on_sent=lambda: order.append("sent")
        )
        async for item in client.stream(request, NEVER):
            order.append(type(item).__name__)
            if isinstance(item, ReplyDone):
                assert item.message.text == "hello"
        await client.aclose()
    assert order[0] == "sent" and order.count("sent") == 1
    assert TextDelta.__name__ in order and order[-1] == ReplyDone.__name__


async def test_a_refused_request_is_not_reported_sent() -> None:
    with FakeModelServer() as server:
        server.default = lambda payload: Reply(status=400, body='{"error": {"message": "bad"}}')
        client = make_client(ModelSettings(base_url=server.base_url, model="m", max_retries=0))
        sent: list[bool] = []
        request = ModelRequest(
            system="s", messages=[user_text("hi")], on_sent=lambda: sent.append(True)
        )
        items: list[StreamItem] = []
        with pytest.raises(ModelError, match="bad"):
            async for item in client.stream(request, NEVER):
                items.append(item)
        await client.aclose()
    assert items == [] and sent == []

"""Fixtures for the model client tests: a loopback fake endpoint and client factories."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import AssistantMessage
from ink_ls.core.signal import NEVER, CancelSignal
from ink_ls.model.base import ModelRequest, ReplyDone, TextDelta, ThinkingDelta, ToolCallReady
from ink_ls.model.client import ModelClient
from ink_ls.model.providers import make_client as client_for
from tests.fakes.model_server import FakeModelServer


@pytest.fixture(scope="module")
def _shared_server() -> Iterator[FakeModelServer]:
    # one server per module: shutting one down costs half a second (serve_forever's poll)
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture
def server(_shared_server: FakeModelServer) -> FakeModelServer:
    """The loopback fake endpoint, with an empty script and no recorded requests."""
    srv = _shared_server
    with srv._cond:
        srv._script.clear()
        srv.requests.clear()
        srv.request_headers.clear()
        srv.paths.clear()
        srv.bodies.clear()
        srv.disconnects = 0
    return srv


class SleepRecorder:
    """Stands in for asyncio.sleep: records the backoff delays without waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


MakeClient = Callable[..., ModelClient]


@pytest.fixture
async def make_client(server: FakeModelServer, sleeps: SleepRecorder) -> AsyncIterator[MakeClient]:
    clients: list[ModelClient] = []

    def make(**settings: Any) -> ModelClient:
        """A client of the provider `settings` name (Chat Completions by default)."""
        transport = settings.pop("transport", None)
        values: dict[str, Any] = {"base_url": server.base_url, "model": "fake-model"}
        values.update(settings)
        client = client_for(
            ModelSettings(**values), transport=transport, sleep=sleeps, rng=lambda: 0.5
        )
        clients.append(client)
        return client

    yield make
    for c in clients:
        await c.aclose()


async def collect(
    client: ModelClient, request: ModelRequest, signal: CancelSignal = NEVER
) -> tuple[list[str], AssistantMessage]:
    """All text deltas and the final message of one streamed reply.

    Every call handed out early (`ToolCallReady`) must be exactly the final message's call
    at that position.
    """
    deltas: list[str] = []
    ready: list[ToolCallReady] = []
    final: AssistantMessage | None = None
    async for item in client.stream(request, signal):
        assert final is None, "nothing may follow ReplyDone"
        if isinstance(item, TextDelta):
            deltas.append(item.text)
        elif isinstance(item, ToolCallReady):
            ready.append(item)
        elif isinstance(item, ThinkingDelta):
            continue  # shown to the user, not part of the answer
        else:
            assert isinstance(item, ReplyDone)
            final = item.message
    assert final is not None, "the stream must end with ReplyDone"
    for r in ready:
        assert final.stop_reason == "aborted" or final.tool_calls[r.index] == r.call
    return deltas, final

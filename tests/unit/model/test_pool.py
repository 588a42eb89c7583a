"""Connections under a burst: small pools made on demand and closed when idle; a limited
endpoint's streams report their place in its queue over real loopback HTTP."""

from __future__ import annotations

import asyncio
import threading
from contextlib import AsyncExitStack

import httpx

from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import user_text
from ink_ls.core.signal import NEVER
from ink_ls.model.base import ModelRequest, Queued, ReplyDone, StreamItem
from ink_ls.model.client import ModelClient
from ink_ls.model.pool import ShardedClient
from ink_ls.model.providers import make_client
from ink_ls.model.queue import EndpointQueues
from tests.fakes.model_server import FakeModelServer, text


async def test_requests_spread_over_small_pools_that_close_when_idle() -> None:
    pools = ShardedClient(httpx.Timeout(5.0), per_shard=2)
    async with AsyncExitStack() as held:
        clients = [await held.enter_async_context(pools.lease()) for _ in range(7)]
        assert pools.shards == 4  # 2 + 2 + 2 + 1
        assert [clients.count(c) for c in clients] == [2, 2, 2, 2, 2, 2, 1]
    assert pools.shards == 2  # the idle ones closed, one spare kept
    async with pools.lease() as again:
        assert again is clients[0]  # the lowest pool with room serves first
    await pools.aclose()
    assert pools.shards == 0


async def test_a_burst_of_streams_goes_out_at_once() -> None:
    release = threading.Event()
    with FakeModelServer() as server:
        server.default = lambda payload: text("ok", gate=release)
        client = make_client(ModelSettings(base_url=server.base_url, model="m"))
        tasks = [asyncio.create_task(_collect(client)) for _ in range(40)]
        await asyncio.to_thread(server.wait_requests, 40, 30.0)  # all 40 in flight together
        release.set()
        replies = await asyncio.gather(*tasks)
        await client.aclose()
    assert all(items[-1] == ReplyDone.__name__ for items in replies)


async def _collect(client: ModelClient) -> list[str]:
    request = ModelRequest(system="s", messages=[user_text("hi")])
    return [type(item).__name__ async for item in client.stream(request, NEVER)]


async def test_a_limited_endpoint_reports_the_place_then_running() -> None:
    release = threading.Event()
    with FakeModelServer() as server:
        server.default = lambda payload: text("ok", gate=release)
        queues = EndpointQueues()
        settings = ModelSettings(base_url=server.base_url, model="m", max_concurrent_requests=1)
        # two clients of one endpoint (other settings) share its limit
        first = make_client(settings, queues=queues)
        second = make_client(settings.model_copy(update={"model": "n"}), queues=queues)
        request = ModelRequest(system="s", messages=[user_text("hi")])
        items: list[StreamItem] = []
        told = asyncio.Event()

        async def waiting() -> None:
            async for item in second.stream(request, NEVER):
                items.append(item)
                told.set()

        running = asyncio.create_task(_collect(first))
        await asyncio.to_thread(server.wait_requests, 1, 10.0)
        queued = asyncio.create_task(waiting())
        await asyncio.wait_for(told.wait(), 10.0)
        assert items == [Queued(0)] and len(server.requests) == 1
        release.set()
        await asyncio.gather(running, queued)
        assert items[:2] == [Queued(0), Queued(None)]
        assert isinstance(items[-1], ReplyDone) and items[-1].message.text == "ok"
        await first.aclose()
        await second.aclose()

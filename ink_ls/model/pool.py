"""Connections to one model endpoint that stay cheap with a thousand requests in flight.

httpcore's pool scans every queued request and every connection on each event, so one pool
with n requests costs O(n) per event and O(n²) per burst (27 s of CPU for 1,000). Here the
requests are spread over small pools ("shards") of at most `PER_SHARD` each, made when all are
full and closed again when the last one falls idle, so an event costs O(PER_SHARD) and a burst
O(n). HTTP/2 is offered where TLS negotiates it (one connection then carries a shard's
streams); a cleartext endpoint gets HTTP/1.1, one connection per request in flight.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from ink_ls.model.tls import context_for

log = logging.getLogger(__name__)

PER_SHARD = 16
"""Requests in flight per small pool: the scan stays short, and few pools serve a burst."""


def _has_h2() -> bool:
    try:
        import h2  # noqa: F401
    except ImportError:
        return False
    return True


def raise_fd_limit() -> None:
    """Lift the soft limit of open files to the hard one: a burst keeps one connection per
    request in flight, more than a 1,024 soft limit allows."""
    try:
        import resource
    except ImportError:  # not on Windows
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or soft < hard:
            target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError) as exc:  # a container may forbid it: keep what we have
        log.info("cannot raise the open-files limit (%s)", exc)


class ShardedClient:
    """`lease()` hands out an `httpx.AsyncClient` with room for one more request."""

    def __init__(
        self,
        timeout: httpx.Timeout,
        *,
        url: str = "https:",
        transport: httpx.AsyncBaseTransport | None = None,
        per_shard: int = PER_SHARD,
    ) -> None:
        self._timeout = timeout
        self._url = url
        """The endpoint: whether its pools need the CA bundle (`tls.context_for`)."""
        self._transport = transport
        """An injected transport (tests) is one pool of its own: never sharded."""
        self._per_shard = per_shard
        self._shards: list[httpx.AsyncClient] = []
        self._load: list[int] = []
        self._ssl: ssl.SSLContext | None = None
        self._http2 = _has_h2()

    @property
    def shards(self) -> int:
        """How many small pools are open now."""
        return len(self._shards)

    def _client(self) -> httpx.AsyncClient:
        if self._transport is not None:
            return httpx.AsyncClient(transport=self._transport, timeout=self._timeout)
        if self._ssl is None:  # the CA bundle is read once per process, not per shard
            self._ssl = context_for(self._url)
            raise_fd_limit()
        limits = httpx.Limits(
            max_connections=self._per_shard, max_keepalive_connections=self._per_shard
        )
        return httpx.AsyncClient(
            timeout=self._timeout, verify=self._ssl, limits=limits, http2=self._http2
        )

    def _take(self) -> int:
        for index, load in enumerate(self._load):
            if load < self._per_shard or self._transport is not None:
                self._load[index] += 1
                return index
        self._shards.append(self._client())
        self._load.append(1)
        return len(self._shards) - 1

    @asynccontextmanager
    async def lease(self) -> AsyncIterator[httpx.AsyncClient]:
        """A client for one request; the lowest shard with room, so the last ones empty out
        after a burst and are closed."""
        index = self._take()
        try:
            yield self._shards[index]
        finally:
            self._load[index] -= 1
            await self._trim()

    async def _trim(self) -> None:
        """Close idle shards at the end of the list (their connections with them), keeping
        one idle spare so a load around a shard's size does not open and close one often."""
        while len(self._shards) > 2 and self._load[-1] == 0 and self._load[-2] == 0:
            self._load.pop()
            await self._shards.pop().aclose()

    async def aclose(self) -> None:
        """Close every shard."""
        shards, self._shards, self._load = self._shards, [], []
        for client in shards:
            await client.aclose()

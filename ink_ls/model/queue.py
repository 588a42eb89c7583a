"""The per-endpoint request limit: a fair (first come, first served) queue of model requests.

Only endpoints whose settings name `max_concurrent_requests` get one; every client of the same
endpoint (one per settings) shares it through `EndpointQueues`. Pure asyncio: no HTTP here.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

WaitReport = Callable[[int], None]
"""Told how many requests are ahead of a queued one (0: it is next)."""

_EXACT_BELOW = 10
"""Places below this are reported at every step; above it, at each power of two (16, 32, …),
so a long queue costs O(log n) reports per step, not O(n)."""
_FIRST_POWER = 16


class _Waiter:
    __slots__ = ("future", "report")

    def __init__(self, future: asyncio.Future[None], report: WaitReport) -> None:
        self.future = future
        self.report = report


class FairQueue:
    """At most `limit` holders at once; the others wait in arrival order and are told their
    place. A waiter that is cancelled leaves the queue (and a slot it was just handed passes
    on to the next)."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("the limit must be at least 1")
        self.limit = limit
        self.running = 0
        self._waiters: deque[_Waiter] = deque()

    @property
    def waiting(self) -> int:
        """How many requests wait for a slot."""
        return len(self._waiters)

    @asynccontextmanager
    async def slot(self, report: WaitReport) -> AsyncIterator[None]:
        """Hold one slot for the body; `report(ahead)` is called while waiting (not when a
        slot is free at once)."""
        await self._acquire(report)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, report: WaitReport) -> None:
        if self.running < self.limit and not self._waiters:
            self.running += 1
            return
        waiter = _Waiter(asyncio.get_running_loop().create_future(), report)
        self._waiters.append(waiter)
        report(len(self._waiters) - 1)
        try:
            await waiter.future
        except BaseException:
            if waiter.future.done() and not waiter.future.cancelled():
                self._release()  # handed a slot in the same step it was cancelled
            else:
                self._leave(waiter)
            raise

    def _leave(self, waiter: _Waiter) -> None:
        index = self._waiters.index(waiter)
        del self._waiters[index]
        self._moved(index)

    def _release(self) -> None:
        self.running -= 1
        self.drain()

    def drain(self) -> None:
        """Hand free slots to the first waiters (after a release or a raised limit)."""
        handed = False
        while self._waiters and self.running < self.limit:
            self._waiters.popleft().future.set_result(None)
            self.running += 1
            handed = True
        if handed:
            self._moved(0)

    def _moved(self, start: int) -> None:
        """Everyone from `start` on moved one place up: tell those whose place is worth it."""
        waiters = self._waiters
        size = len(waiters)
        for ahead in range(start, min(size, _EXACT_BELOW)):
            waiters[ahead].report(ahead)
        power = _FIRST_POWER
        while power < size:
            if power >= start:
                waiters[power].report(power)
            power *= 2


class EndpointQueues:
    """One `FairQueue` per endpoint (base URL), shared by every client of the process."""

    def __init__(self) -> None:
        self._queues: dict[str, FairQueue] = {}

    def get(self, endpoint: str, limit: int | None) -> FairQueue | None:
        """The queue of `endpoint` with `limit` slots (None: unlimited, no queue). A changed
        limit applies to requests that arrive from now on."""
        if limit is None:
            return None
        queue = self._queues.get(endpoint)
        if queue is None:
            queue = self._queues[endpoint] = FairQueue(limit)
        elif queue.limit != limit:
            queue.limit = limit
            queue.drain()
        return queue

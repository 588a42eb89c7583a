"""Slots for running tool calls: a FIFO, cancellable counting semaphore.

One instance per process, made by the agent factory and shared by every session and sub-agent,
bounds their leaf calls together, on top of each chunk's own window of 5.
Only leaf calls take a process slot: a call that delegates (task) waits for its sub-agent's
calls, so holding a slot while waiting could deadlock the process. This module never runs tools.
"""

from __future__ import annotations

import asyncio
from collections import deque

from ink_ls.core.signal import NEVER, CancelSignal

DEFAULT_LIMIT = 8


class ConcurrencyBudget:
    """At most `limit` holders at once; waiters are served strictly in arrival order."""

    __slots__ = ("_limit", "_free", "_waiters")

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"a concurrency budget needs at least 1 slot, got {limit}")
        self._limit = limit
        self._free = limit
        self._waiters: deque[asyncio.Future[bool]] = deque()

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def in_use(self) -> int:
        """Slots currently held."""
        return self._limit - self._free

    @property
    def waiting(self) -> int:
        return sum(1 for w in self._waiters if not w.done())

    def try_acquire(self) -> bool:
        """Take a slot if one is free.

        Fair by construction: a slot is only ever counted free when no live waiter was
        queued for it (`release` hands slots straight to waiters).
        """
        if self._free > 0:
            self._free -= 1
            return True
        return False

    async def acquire(self, signal: CancelSignal = NEVER) -> bool:
        """Wait for a slot in FIFO order; False (holding nothing) if `signal` fires first."""
        if signal.cancelled:
            return False
        if self.try_acquire():
            return True
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)

        def on_cancel() -> None:
            if not fut.done():
                fut.set_result(False)

        unsubscribe = signal.subscribe(on_cancel)
        try:
            return await fut
        except asyncio.CancelledError:
            # Granted in the same tick we were cancelled: hand the slot on.
            if fut.done() and not fut.cancelled() and fut.result():
                self.release()
            raise
        finally:
            # A withdrawn waiter stays queued as a done future; `_wake_one` skips it. Removing
            # it here would cost O(waiters) per call: quadratic for a large batch.
            unsubscribe()

    def release(self) -> None:
        """Give a slot back: straight to the oldest waiter if any."""
        if self._free >= 0 and self._wake_one():
            return
        self._free += 1

    def _wake_one(self) -> bool:
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(True)
                return True
        return False

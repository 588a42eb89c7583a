"""The clock the agent core reads and schedules deadlines with, injected so tests can move
time by hand (`ManualClock`) instead of sleeping and hoping on a loaded machine."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """Monotonic seconds, and a callback after a delay (on the running event loop)."""

    def now(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer: ...


class SystemClock:
    """The real clock: `time.perf_counter` and the event loop's timers."""

    def now(self) -> float:
        return time.perf_counter()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)


SYSTEM_CLOCK = SystemClock()


class _ManualTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that moves only when told (`advance`); due callbacks run in deadline order."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._due: list[tuple[float, int, _ManualTimer, Callable[[], None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = _ManualTimer()
        heapq.heappush(self._due, (self._now + delay, next(self._order), timer, callback))
        return timer

    @property
    def pending(self) -> int:
        """Timers armed and not yet due nor cancelled."""
        return sum(1 for _, _, t, _ in self._due if not t.cancelled)

    def advance(self, seconds: float) -> None:
        """Move time on by `seconds`, running every callback that falls due on the way."""
        target = self._now + seconds
        while self._due and self._due[0][0] <= target:
            when, _, timer, callback = heapq.heappop(self._due)
            self._now = when
            if not timer.cancelled:
                callback()
        self._now = target

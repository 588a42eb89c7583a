"""Cancellation of running calls: after a cancel, the calls still running share one grace
deadline; those still running then are abandoned (their work asked to stop, a late result
dropped by the scheduler). An abandoned call keeps its budget slot until its task has really
ended: its process may still be running. Without a cancel no timer runs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.core.clock import SYSTEM_CLOCK, Clock, Timer


@dataclass
class Slot:
    """A call that really runs: its task, start time, and its process-budget slot."""

    task: asyncio.Task[None]
    started: float
    budget: ConcurrencyBudget | None
    released: bool = False

    def release(self) -> None:
        """Give the budget slot back, once (an abandoned call may still end later)."""
        if not self.released:
            self.released = True
            if self.budget is not None:
                self.budget.release()

    def release_when_done(self, task: asyncio.Task[None]) -> None:
        """Done-callback of an abandoned call's task: only now is its slot free again."""
        self.release()


class Grace:
    """The running calls of one batch and their shared grace deadline."""

    def __init__(
        self,
        seconds: float,
        on_expire: Callable[[int, Slot, float], None],
        *,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.seconds = seconds
        self.clock = clock
        self._on_expire = on_expire
        """(call index, its slot, milliseconds it ran) for each call abandoned at the deadline."""
        self.running: dict[int, Slot] = {}
        self._timer: Timer | None = None

    def track(self, i: int, task: asyncio.Task[None], budget: ConcurrencyBudget | None) -> None:
        self.running[i] = Slot(task, self.clock.now(), budget)

    def end(self, i: int) -> Slot | None:
        """Call `i` ended by itself: no longer running (None if it was never tracked)."""
        return self.running.pop(i, None)

    def cancelled(self) -> None:
        """A cancel: arm the one deadline if calls are running (once per batch)."""
        if self.running and self._timer is None:
            self._timer = self.clock.call_later(self.seconds, self._expire)

    def dispose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _expire(self) -> None:
        now = self.clock.now()
        running, self.running = self.running, {}
        for i, slot in running.items():
            self._on_expire(i, slot, (now - slot.started) * 1000.0)
            slot.task.cancel()  # its result is dropped; still try to stop the abandoned work
            # The slot stays held until the work is gone (a bash call returns only once its
            # processes are reaped): freeing it now let a budget of 8 run 9 commands at once.
            slot.task.add_done_callback(slot.release_when_done)

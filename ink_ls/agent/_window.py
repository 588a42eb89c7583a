"""The sliding window: approved calls wait in call order and start while fewer than the limit
run; with access conflicts known (`_access.dependencies`), a call whose conflicting
predecessors have not ended is passed over and later calls that do not conflict may start
before it. Only started calls have a task, so thousands of waiting calls cost nothing."""

from __future__ import annotations

from collections.abc import Callable

from ink_ls.agent.pipeline import PreparedCall

Waiting = tuple[int, PreparedCall]


class Window:
    """The calls of one batch waiting to start, and how many run."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._pending: list[Waiting] = []
        self._next = 0
        self.running = 0
        self.deps: dict[int, list[int]] = {}
        """Call index → earlier calls it conflicts with (must end before it starts)."""

    @property
    def waiting(self) -> bool:
        return self._next < len(self._pending)

    def queue(self, calls: list[Waiting]) -> None:
        """More approved calls, after those still waiting (call order is kept)."""
        self._pending = self._pending[self._next :] + calls
        self._next = 0

    def drop_waiting(self) -> list[Waiting]:
        """After a cancel: the calls that never started (they never will)."""
        waiting, self._pending, self._next = self._pending[self._next :], [], 0
        return waiting

    def ready(self, ended: Callable[[int], bool]) -> list[Waiting]:
        """The calls to start now, in call order (counted as running); `ended(i)` tells
        whether call `i` has its result."""
        started: list[Waiting] = []
        pending = self._pending
        if not self.deps:
            while self.running < self.limit and self._next < len(pending):
                started.append(pending[self._next])
                self._next += 1
                self.running += 1
            return started
        k = self._next
        while self.running < self.limit and k < len(pending):
            i, _ = pending[k]
            if not all(ended(d) for d in self.deps.get(i, ())):
                k += 1
                continue
            started.append(pending.pop(k))
            self.running += 1
        return started

    def left(self) -> None:
        """A running call left the window (ended or abandoned)."""
        self.running -= 1

"""The order of delivery: each call's result is kept in its place, and `tool_end` is emitted in
call order, from the first undelivered call onward as far as results are complete, only once
the reply has ended (`close`). Nothing here starts or cancels a call."""

from __future__ import annotations

from collections.abc import Callable

from ink_ls.agent.events import AgentEvent
from ink_ls.agent.pipeline import CallResult


class Delivery:
    """The results of one batch, in call order."""

    def __init__(self, emit: Callable[[AgentEvent], None]) -> None:
        self._emit = emit
        self.results: list[CallResult | None] = []
        self._delivered = 0
        self._closed = False

    def add(self, count: int = 1) -> None:
        """Places for `count` more calls (results to come)."""
        self.results.extend([None] * count)

    def has(self, i: int) -> bool:
        """Call `i` has its result (it ended, was refused, or was abandoned)."""
        return self.results[i] is not None

    def set(self, i: int, result: CallResult) -> None:
        self.results[i] = result
        self._flush()

    def close(self) -> None:
        """The reply has ended: results may be delivered from now on."""
        self._closed = True
        self._flush()

    def missing(self) -> list[int]:
        return [i for i, r in enumerate(self.results) if r is None]

    def ordered(self) -> list[CallResult]:
        """Every result, in call order (call after every place has its result)."""
        return [r for r in self.results if r is not None]

    def _flush(self) -> None:
        if not self._closed:  # results wait for the end of the reply
            return
        results, n = self.results, len(self.results)
        while self._delivered < n:
            r = results[self._delivered]
            if r is None:
                return
            self._delivered += 1
            self._emit(r.end_event())

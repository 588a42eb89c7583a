"""Values worked out once per shared object, keyed by its identity: the tool entries
(`core.tool.shared_schema`) are shared by every request, so their JSON and its length are
made once per process, not once per request."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

E = TypeVar("E")
V = TypeVar("V")


class IdentityMemo(Generic[E, V]):
    """`get(key, entry, make)` → `make(entry)`, made once per (key, entry). The entry is kept
    beside its value, so its id cannot be reused by another object while it is known."""

    def __init__(self, limit: int = 4096) -> None:
        self._known: dict[tuple[Hashable, int], tuple[E, V]] = {}
        self._limit = limit

    def get(self, key: Hashable, entry: E, make: Callable[[E], V]) -> V:
        known = self._known.get((key, id(entry)))
        if known is None or known[0] is not entry:
            if len(self._known) >= self._limit:  # entries made per request, not shared: start over
                self._known.clear()
            known = self._known[(key, id(entry))] = (entry, make(entry))
        return known[1]

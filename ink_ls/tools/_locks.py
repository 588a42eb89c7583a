"""Per-file locks: edits and writes of one file run one after another, different files in parallel.

Keyed by the real path, so two spellings of one file (symlink, `..`) share a lock. Locks are
dropped when nobody holds or waits for them. This module knows nothing of editing.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from ink_ls.core.signal import CancelSignal, race

_locks: dict[str, asyncio.Lock] = {}
_users: dict[str, int] = {}


@asynccontextmanager
async def file_lock(path: Path, signal: CancelSignal) -> AsyncIterator[None]:
    """Hold the lock of `path` for the body. Raises `CancelledError` (ours) if `signal` is
    cancelled while waiting for it."""
    key = os.path.realpath(path)
    lock = _locks.setdefault(key, asyncio.Lock())
    _users[key] = _users.get(key, 0) + 1
    try:
        acquire: asyncio.Future[Any] = asyncio.ensure_future(lock.acquire())
        try:
            await race(acquire, signal)  # raises CancelledError (ours) on cancel
        except BaseException:
            _abandon(acquire, lock)
            raise
        try:
            yield
        finally:
            lock.release()
    finally:
        _users[key] -= 1
        if _users[key] == 0:
            del _users[key]
            del _locks[key]


def _abandon(acquire: asyncio.Future[Any], lock: asyncio.Lock) -> None:
    """Give up on an acquire: the lock must not stay held by nobody."""

    def release_if_taken(fut: asyncio.Future[Any]) -> None:
        if not fut.cancelled() and fut.exception() is None:
            lock.release()

    if acquire.done():
        release_if_taken(acquire)
    else:
        acquire.cancel()
        acquire.add_done_callback(release_if_taken)


def held_count() -> int:
    """How many paths currently have a lock (held or awaited); for tests and diagnostics."""
    return len(_locks)

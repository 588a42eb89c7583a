"""Ordered delivery of `session/update` notifications from the agent's synchronous event sink.

Events arrive on a plain callback; notifications are async. One sender task drains a queue in
order, and `flush` waits until everything posted so far is sent, so a prompt's answer, a
permission request or a loaded session's reply never overtakes the updates before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from acp.helpers import SessionUpdate

log = logging.getLogger(__name__)

Send = Callable[[str, SessionUpdate], Awaitable[None]]


class Outbox:
    """One per connection."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._queue: asyncio.Queue[tuple[str, SessionUpdate]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def post(self, session_id: str, update: SessionUpdate) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._drain())
        self._queue.put_nowait((session_id, update))

    async def flush(self) -> None:
        if self._task is not None:
            await self._queue.join()

    async def _drain(self) -> None:
        while True:
            session_id, update = await self._queue.get()
            try:
                await self._send(session_id, update)
            except Exception as exc:  # a closed client: drop the update, keep the run going
                log.info("session/update not delivered: %s", exc)
            finally:
                self._queue.task_done()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

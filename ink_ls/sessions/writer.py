"""Session files written off the event loop, in order, by one thread of the process.

Creating a session file costs about 0.6 ms on a busy disk and an append tens of microseconds;
on the event loop both sat between a prompt and its model request, and a burst of new sessions
paid them one after another. A `Session` with a writer queues its lines in memory as before
and asks the writer to write them: one worker thread for every session, so writes keep the
order they were asked in; a failed write keeps its lines waiting exactly as a synchronous save
does (`Session.save`), and its outcome reaches the session's `on_save` listener on the event
loop. `flush` waits for a session's lines (a turn ends only once its history is written);
interpreter exit and an exit signal write whatever still waits.
"""

from __future__ import annotations

import asyncio
import atexit
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from ink_ls.tools.processes import on_exit_signal

if TYPE_CHECKING:
    from ink_ls.sessions.store import Session


class SessionWriter:
    """Writes the waiting lines of sessions in a thread of its own (see module doc)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ink-sessions")
        self._last: weakref.WeakKeyDictionary[Session, asyncio.Future[str | None]] = (
            weakref.WeakKeyDictionary()
        )
        self._sessions: weakref.WeakSet[Session] = weakref.WeakSet()
        atexit.register(self.write_all)
        on_exit_signal(self.write_all)

    def submit(self, session: Session) -> None:
        """Write `session`'s waiting lines soon (at once, here, without a running loop)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            session.save()
            return
        if session.write_queued:  # the job waiting for the thread takes this line too
            return
        session.write_queued = True
        self._sessions.add(session)
        job = loop.run_in_executor(self._pool, _write, session)
        job.add_done_callback(lambda done: session.saved(_outcome(done)))
        self._last[session] = job

    async def flush(self, session: Session) -> None:
        """Wait until every line `session` asked to write is written (or failed and waits)."""
        job = self._last.get(session)
        if job is not None:
            await asyncio.shield(job)

    def write_all(self) -> None:
        """Write every session's waiting lines now, in this thread (at exit)."""
        for session in list(self._sessions):
            session.saved(session.write_waiting(timeout=1.0))


_shared: SessionWriter | None = None


def shared_writer() -> SessionWriter:
    """The process's writer (one thread for every session of every front end)."""
    global _shared
    if _shared is None:
        _shared = SessionWriter()
    return _shared


def _write(session: Session) -> str | None:
    # lines queued from here on may be missed by this job: they queue a job of their own
    session.write_queued = False
    return session.write_waiting()


def _outcome(job: asyncio.Future[str | None]) -> str | None:
    if job.cancelled():
        return None
    error = job.exception()
    if error is not None:
        return str(error)
    return job.result()

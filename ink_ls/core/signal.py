"""Cancellation signals: what a tool polls, awaits or subscribes to in order to stop.

A `CancelController` owns the right to cancel; the `CancelSignal` it hands out is
read-only. Signals chain: a child signal is cancelled when its parent is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class CancelledError(Exception):
    """Raised by `CancelSignal.raise_if_cancelled` (not asyncio.CancelledError on purpose)."""


class WaitTimeoutError(Exception):
    """`race` gave up after its timeout (distinct from a TimeoutError raised by the work)."""


class CancelSignal:
    """Read-only view of a cancellation: poll `cancelled`, `await wait()`, or `subscribe()`."""

    __slots__ = ("_cancelled", "_reason", "_callbacks", "_waiters")

    def __init__(self) -> None:
        self._cancelled = False
        self._reason: str | None = None
        self._callbacks: list[Callable[[], None]] = []
        self._waiters: list[asyncio.Future[None]] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def reason(self) -> str | None:
        return self._reason

    def raise_if_cancelled(self) -> None:
        if self._cancelled:
            raise CancelledError(self._reason or "cancelled")

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` once on cancel (at once if already cancelled); returns an unsubscribe."""
        if self._cancelled:
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def unsubscribe() -> None:
            try:
                self._callbacks.remove(callback)
            except ValueError:
                pass

        return unsubscribe

    async def wait(self) -> None:
        """Return when the signal is cancelled."""
        if self._cancelled:
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await fut
        finally:
            if fut in self._waiters:
                self._waiters.remove(fut)

    def _fire(self, reason: str | None) -> None:
        if self._cancelled:
            return
        self._cancelled = True
        self._reason = reason
        callbacks, self._callbacks = self._callbacks, []
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)
        for cb in callbacks:
            cb()


class CancelController:
    """Owns a `CancelSignal`; optionally chained to a parent signal."""

    __slots__ = ("signal", "_unlink")

    def __init__(self, parent: CancelSignal | None = None) -> None:
        self.signal = CancelSignal()
        self._unlink: Callable[[], None] | None = None
        if parent is not None:
            self._unlink = parent.subscribe(lambda: self.cancel(parent.reason))

    def cancel(self, reason: str | None = None) -> None:
        self.signal._fire(reason)

    def detach(self) -> None:
        """Stop following the parent (call when the child's work is over)."""
        if self._unlink is not None:
            self._unlink()
            self._unlink = None


NEVER = CancelSignal()
"""A signal that is never cancelled; the default where no cancel can come."""


async def race(
    aw: Awaitable[T], signal: CancelSignal, *, timeout: float | None = None, settle: bool = False
) -> T:
    """Await `aw` unless `signal` is cancelled first, or `timeout` seconds pass.

    The one place work is raced against a cancel. On cancel it raises `CancelledError` (ours),
    on timeout `WaitTimeoutError`; either way `aw` is cancelled if it is still running, so
    whatever it waited for (a lock, a user's answer, a stream) is withdrawn, and with `settle`
    the cancelled work is awaited first (for work that must close what it holds). A result (or
    exception) of `aw` that is ready first wins, even when the signal fires in the same tick.
    """
    task = asyncio.ensure_future(aw)
    if not task.done():
        if signal.cancelled:
            task.cancel()
            raise CancelledError(signal.reason or "cancelled")
        fired = asyncio.get_running_loop().create_future()

        def on_cancel() -> None:
            if not fired.done():
                fired.set_result(None)

        unsubscribe = signal.subscribe(on_cancel)
        try:
            await asyncio.wait((task, fired), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # our own task was cancelled: take `aw` down with it
            task.cancel()
            raise
        finally:
            unsubscribe()
        if not task.done():
            task.cancel()
            if settle:
                await asyncio.wait((task,))
            if fired.done():
                raise CancelledError(signal.reason or "cancelled")
            raise WaitTimeoutError(f"no result within {timeout:g}s")
    return task.result()

"""`race`: the one helper that races work against a cancel (and an optional timeout)."""

from __future__ import annotations

import asyncio

import pytest

from ink_ls.core.signal import CancelController, CancelledError, WaitTimeoutError, race


async def test_the_result_wins_when_it_is_ready_first() -> None:
    controller = CancelController()
    assert await race(asyncio.sleep(0, "done"), controller.signal) == "done"


async def test_a_cancel_ends_the_wait_and_cancels_the_work() -> None:
    controller = CancelController()
    work = asyncio.ensure_future(asyncio.Event().wait())
    waiting = asyncio.ensure_future(race(work, controller.signal))
    await asyncio.sleep(0)
    controller.cancel("stop please")
    with pytest.raises(CancelledError, match="stop please"):
        await waiting
    await asyncio.sleep(0)
    assert work.cancelled()


async def test_an_already_cancelled_signal_never_waits() -> None:
    controller = CancelController()
    controller.cancel()
    work = asyncio.ensure_future(asyncio.Event().wait())
    with pytest.raises(CancelledError):
        await race(work, controller.signal)
    await asyncio.sleep(0)
    assert work.cancelled()


async def test_a_timeout_is_its_own_error_and_the_works_errors_pass_through() -> None:
    controller = CancelController()
    with pytest.raises(WaitTimeoutError, match="no result within 0.01s"):
        await race(asyncio.Event().wait(), controller.signal, timeout=0.01)

    async def fails() -> None:
        raise TimeoutError("the work's own timeout")

    with pytest.raises(TimeoutError, match="the work's own timeout"):
        await race(fails(), controller.signal, timeout=5)


async def test_settle_waits_for_the_cancelled_work_to_clean_up() -> None:
    controller = CancelController()
    cleaned: list[str] = []

    async def holds_something() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            await asyncio.sleep(0.01)
            cleaned.append("closed")

    waiting = asyncio.ensure_future(race(holds_something(), controller.signal, settle=True))
    await asyncio.sleep(0)
    controller.cancel()
    with pytest.raises(CancelledError):
        await waiting
    assert cleaned == ["closed"]

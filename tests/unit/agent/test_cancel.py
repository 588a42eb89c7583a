"""Cancellation and grace: one shared deadline after a cancel, abandoned results,
dropped late results, and no timer at all without a cancel. The grace deadline runs on an
injected `ManualClock`: tests move time by hand, nothing depends on the machine's speed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest
from agent_fakes import CWD, BashTool, Board, ReadTool, Recorder, call

from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.pipeline import CallResult
from ink_ls.agent.scheduler import BatchEnv, run_batch
from ink_ls.core.clock import ManualClock
from ink_ls.core.messages import TextBlock
from ink_ls.core.signal import CancelController, CancelSignal
from ink_ls.core.tool import Tool, ToolContext, ToolParams, ToolRegistry, ToolResult

GRACE = 0.3
ABANDONED = (
    "Tool {} did not respond to the interrupt within 0.3s — result abandoned;"
    " the underlying process may still be running."
)


def make_env(board: Board, rec: Recorder, **kw: object) -> BatchEnv:
    tools = ToolRegistry([ReadTool(board), BashTool(board)])
    kw.setdefault("clock", ManualClock())
    return BatchEnv(tools=tools, cwd=CWD, on_event=rec, grace_seconds=GRACE, **kw)  # type: ignore[arg-type]


async def armed(clock: ManualClock) -> None:
    """Wait (on the event loop, not the wall clock) until the batch armed its deadline."""
    for _ in range(1000):
        if clock.pending:
            return
        await asyncio.sleep(0)
    raise AssertionError("no grace deadline was armed")


async def until(ready: Callable[[], bool]) -> None:
    """Wait, on the event loop, until `ready()` holds (calls that obey the cancel end)."""
    for _ in range(10_000):
        if ready():
            return
        await asyncio.sleep(0)
    raise AssertionError("the awaited state never came")


async def pass_grace(env: BatchEnv) -> None:
    """The grace period passes: the deadline fires."""
    clock = env.clock
    assert isinstance(clock, ManualClock)
    await armed(clock)
    clock.advance(GRACE)


def texts(results: list[CallResult]) -> list[str]:
    return [r.content[0].text for r in results if isinstance(r.content[0], TextBlock)]


async def test_a_hung_call_is_abandoned_at_the_deadline_and_not_before() -> None:
    board, rec = Board(ignore_cancel={"h"}), Recorder()
    clock = ManualClock()
    ctrl = CancelController()
    env = make_env(board, rec, clock=clock)
    task = asyncio.ensure_future(
        run_batch([call("bash", "h"), call("bash", "next")], env, ctrl.signal)
    )
    await board.wait_started("h")
    ctrl.cancel("stop")
    await armed(clock)
    clock.advance(GRACE * 0.99)
    for _ in range(50):
        await asyncio.sleep(0)
    assert not task.done(), "nothing may happen before the grace deadline"
    assert rec.of("tool_end") == []
    clock.advance(GRACE * 0.01)
    results = await asyncio.wait_for(task, 30)
    assert texts(results) == [ABANDONED.format("bash"), "(interrupted before this tool ran)"]
    assert all(r.is_error for r in results)
    assert rec.of("tool_settled") == ["bash-h"]
    assert rec.of("tool_end") == ["bash-h", "bash-next"]
    # Its result is dropped, and the abandoned work is also asyncio-cancelled.
    await asyncio.sleep(0)
    assert "asyncio-cancelled:h" in board.log


async def test_without_a_cancel_no_grace_timer_cuts_a_long_tool() -> None:
    class Slow(Tool[ToolParams]):
        name = "slow"
        description = "takes longer than the grace period"
        params_model = ToolParams

        async def execute(
            self, args: ToolParams, signal: CancelSignal, context: ToolContext
        ) -> ToolResult:
            await asyncio.sleep(GRACE * 2)  # the tool's own work, not a test wait
            return ToolResult(output="finished")

    rec = Recorder()
    clock = ManualClock()
    env = BatchEnv(
        tools=ToolRegistry([Slow()]), cwd=CWD, on_event=rec, grace_seconds=GRACE / 3, clock=clock
    )
    results = await run_batch([call("slow", id="s1", raw="{}")], env)
    assert clock.pending == 0  # no deadline was ever armed
    assert texts(results) == ["finished"] and not results[0].is_error
    assert results[0].duration_ms is not None and results[0].duration_ms >= GRACE * 2 * 1000 * 0.9


async def test_in_a_mixed_batch_only_the_hung_call_is_abandoned() -> None:
    board, rec = Board(ignore_cancel={"b"}), Recorder()
    ctrl = CancelController()
    calls = [call("read", k) for k in "abcdefg"]  # f, g wait for a slot
    env = make_env(board, rec)
    task = asyncio.ensure_future(run_batch(calls, env, ctrl.signal))
    await board.wait_started(*"abcde")
    board.release("c")
    await board.wait_started("f")
    ctrl.cancel("stop")
    obeying = {f"read-{k}" for k in "acdef"}
    await until(lambda: obeying <= set(rec.of("tool_settled")))
    await pass_grace(env)
    results = await asyncio.wait_for(task, 30)
    assert texts(results) == [
        "stopped a",
        ABANDONED.format("read"),
        "read c",
        "stopped d",
        "stopped e",
        "stopped f",
        "(interrupted before this tool ran)",
    ]
    assert rec.of("tool_end") == [c.id for c in calls]
    settled = rec.of("tool_settled")
    assert settled[-1] == "read-b" and sorted(settled) == sorted(f"read-{k}" for k in "abcdef")


async def test_two_hung_calls_share_one_deadline() -> None:
    board, rec = Board(ignore_cancel={"x", "y"}), Recorder()
    clock = ManualClock()
    ctrl = CancelController()
    env = make_env(board, rec, clock=clock)
    task = asyncio.ensure_future(
        run_batch([call("read", "x"), call("read", "y")], env, ctrl.signal)
    )
    settled_at: dict[str, float] = {}
    rec.hooks.append(
        lambda e: (
            settled_at.setdefault(getattr(e, "tool_call_id", ""), clock.now())
            if e.type == "tool_settled"
            else None
        )
    )
    await board.wait_started("x", "y")
    t0 = clock.now()
    ctrl.cancel()
    await armed(clock)
    assert clock.pending == 1  # one deadline for the batch, not one per call
    clock.advance(GRACE)
    results = await asyncio.wait_for(task, 30)
    assert texts(results) == [ABANDONED.format("read")] * 2
    # counted from the cancel: both are abandoned together, at the deadline
    assert settled_at["read-x"] == settled_at["read-y"] == t0 + GRACE


async def test_a_late_real_result_is_dropped_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    late = asyncio.Event()
    board, rec = Board(ignore_cancel={"h"}, late={"h": late}), Recorder()
    ctrl = CancelController()
    env = make_env(board, rec)
    task = asyncio.ensure_future(run_batch([call("read", "h")], env, ctrl.signal))
    await board.wait_started("h")
    ctrl.cancel()
    await pass_grace(env)
    results = await asyncio.wait_for(task, 30)
    assert texts(results) == [ABANDONED.format("read")]
    with caplog.at_level(logging.WARNING, logger="ink_ls.agent.scheduler"):
        late.set()
        for _ in range(10):
            await asyncio.sleep(0)
    assert "late:h" in board.log
    assert any(
        "late result of abandoned tool call read-h" in r.getMessage() for r in caplog.records
    )
    assert texts(results) == [ABANDONED.format("read")]
    assert rec.of("tool_end") == ["read-h"]  # never delivered twice


async def test_the_process_budget_slot_of_an_abandoned_call_is_given_back() -> None:
    board, rec = Board(ignore_cancel={"h"}), Recorder()
    budget = ConcurrencyBudget(1)
    ctrl = CancelController()
    env = make_env(board, rec, budget=budget)
    task = asyncio.ensure_future(run_batch([call("read", "h")], env, ctrl.signal))
    await board.wait_started("h")
    assert budget.in_use == 1
    ctrl.cancel()
    await pass_grace(env)
    await asyncio.wait_for(task, 30)
    await until(lambda: budget.in_use == 0)  # once the cancelled task has really ended
    assert "asyncio-cancelled:h" in board.log


async def test_an_abandoned_call_holds_its_slot_until_its_work_has_ended() -> None:
    late = asyncio.Event()
    board, rec = Board(ignore_cancel={"h"}, late={"h": late}), Recorder()
    budget = ConcurrencyBudget(1)
    ctrl = CancelController()
    env = make_env(board, rec, budget=budget)
    task = asyncio.ensure_future(run_batch([call("read", "h")], env, ctrl.signal))
    await board.wait_started("h")
    ctrl.cancel()
    await pass_grace(env)
    results = await asyncio.wait_for(task, 30)
    assert texts(results) == [ABANDONED.format("read")]  # the user gets the turn back at once
    await until(lambda: "asyncio-cancelled:h" in board.log)
    assert budget.in_use == 1 and not budget.try_acquire()  # its work still runs: slot held
    late.set()
    await until(lambda: budget.in_use == 0)


async def test_a_tool_that_obeys_the_signal_ends_the_batch_without_waiting_for_grace() -> None:
    board, rec = Board(), Recorder()
    ctrl = CancelController()
    env = make_env(board, rec)
    task = asyncio.ensure_future(run_batch([call("bash", "a")], env, ctrl.signal))
    await board.wait_started("a")
    ctrl.cancel()
    results = await asyncio.wait_for(task, 30)  # the clock never moves: no grace was needed
    assert texts(results) == ["stopped a"]

"""The concurrency budget: FIFO slots, cancellable waits, and one limit over several batches."""

from __future__ import annotations

import asyncio

import pytest
from agent_fakes import CWD, Board, ReadTool, Recorder, ScriptedModel, call

from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.factory import AgentFactory, AgentParts
from ink_ls.agent.scheduler import BatchEnv, run_batch
from ink_ls.core.config import ModelSettings
from ink_ls.core.signal import CancelController
from ink_ls.core.tool import ToolRegistry


async def spin(n: int = 20) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


async def test_waiters_are_served_in_arrival_order() -> None:
    budget = ConcurrencyBudget(1)
    assert await budget.acquire()
    order: list[str] = []

    async def take(name: str) -> None:
        assert await budget.acquire()
        order.append(name)

    tasks = [asyncio.ensure_future(take(n)) for n in "abc"]
    await spin()
    assert order == [] and budget.waiting == 3
    for expected in (["a"], ["a", "b"], ["a", "b", "c"]):
        budget.release()
        await spin()
        assert order == expected
    await asyncio.gather(*tasks)
    assert budget.in_use == 1


async def test_a_cancelled_wait_holds_nothing_and_the_next_waiter_is_served() -> None:
    budget = ConcurrencyBudget(1)
    assert budget.try_acquire()
    ctrl = CancelController()
    first = asyncio.ensure_future(budget.acquire(ctrl.signal))
    second = asyncio.ensure_future(budget.acquire())
    await spin()
    ctrl.cancel()
    assert await first is False
    budget.release()
    assert await second is True
    assert budget.in_use == 1 and budget.waiting == 0


async def test_a_granted_but_asyncio_cancelled_wait_passes_the_slot_on() -> None:
    budget = ConcurrencyBudget(1)
    assert budget.try_acquire()
    first = asyncio.ensure_future(budget.acquire())
    second = asyncio.ensure_future(budget.acquire())
    await spin()
    budget.release()  # grants `first` ...
    first.cancel()  # ... which is cancelled before it resumes
    assert await second is True
    assert first.cancelled() and budget.in_use == 1


def test_a_budget_needs_a_slot() -> None:
    with pytest.raises(ValueError, match="at least 1 slot"):
        ConcurrencyBudget(0)


async def test_one_budget_bounds_leaf_calls_across_concurrent_batches() -> None:
    board = Board()
    budget = ConcurrencyBudget(3)
    tools = ToolRegistry([ReadTool(board)])
    envs = [BatchEnv(tools=tools, cwd=CWD, on_event=Recorder(), budget=budget) for _ in range(2)]
    keys = [[f"{s}{i}" for i in range(5)] for s in "xy"]
    tasks = [
        asyncio.ensure_future(run_batch([call("read", k) for k in ks], env))
        for ks, env in zip(keys, envs, strict=True)
    ]
    await board.wait_started("x0", "x1", "x2")
    await spin()
    assert board.running == 3 and budget.in_use == 3
    for ks in keys:
        board.release(*ks)
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert board.max_running == 3 and budget.in_use == 0
    assert len([e for e in board.log if e.startswith("end:")]) == 10


def test_agents_of_one_factory_share_its_budget_and_sub_agents_their_parents() -> None:
    factory = AgentFactory(
        make_model=lambda s: ScriptedModel([]),
        make_tools=lambda c, e: [],
        budget=ConcurrencyBudget(3),
    )
    settings = ModelSettings()
    first = factory.build(AgentParts(settings=settings, cwd=CWD))
    second = factory.build(AgentParts(settings=settings, cwd=CWD))
    assert first.budget is second.budget is factory.budget and factory.budget.limit == 3
    assert first.child().budget is first.budget

"""Benchmark of the batch scheduler, run on demand: `.venv/bin/python bench/scheduler.py`.

1. Overhead: µs per call through the full pipeline (decode, validate, gate, events, window,
   budget, results) for 10,000 no-op safe and 10,000 no-op serial calls, in replies of 10
   calls, against a baseline of awaiting the same tool's `execute` directly.
2. Packing: 200 safe calls of random 1–20 ms: makespan / ideal 5-slot makespan (target ≤ 1.10),
   and the speed-up over running the same calls in fixed waves of 5, measured in this run.
   Calls sleep in a worker thread (like blocking I/O); `--asyncio-sleep` uses event-loop
   timers instead, whose ~1 ms rounding per sleep inflates every makespan on a busy host.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import random
import time
from pathlib import Path

from pydantic import Field

from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.events import AgentEvent, ToolSettledEvent
from ink_ls.agent.scheduler import BatchEnv, run_batch
from ink_ls.core.messages import ToolCall
from ink_ls.core.signal import NEVER, CancelSignal
from ink_ls.core.tool import Tool, ToolContext, ToolParams, ToolRegistry, ToolResult

CWD = Path.cwd()
ASYNCIO_SLEEP = False


class NoopParams(ToolParams):
    path: str = Field(description="ignored")


class NoopSafe(Tool[NoopParams]):
    name = "noop_safe"
    description = "does nothing, concurrently"
    params_model = NoopParams
    concurrency_safe = True

    async def execute(
        self, args: NoopParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        return ToolResult(output="ok")


class NoopSerial(NoopSafe):
    name = "noop_serial"
    concurrency_safe = False


class SleepParams(ToolParams):
    ms: float = Field(description="milliseconds to sleep")


class SleepTool(Tool[SleepParams]):
    name = "sleep"
    description = "sleeps"
    params_model = SleepParams
    concurrency_safe = True

    async def execute(
        self, args: SleepParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        if ASYNCIO_SLEEP:
            await asyncio.sleep(args.ms / 1000)
        else:  # blocking work in a thread: wakes the loop at once, no 1 ms timer rounding
            await asyncio.to_thread(time.sleep, args.ms / 1000)
        return ToolResult(output="slept")


def env(settled: dict[str, float] | None = None) -> BatchEnv:
    """A batch environment; `settled` collects each call's own duration (ms) if given."""
    tools = ToolRegistry([NoopSafe(), NoopSerial(), SleepTool()])
    events = 0

    def sink(event: AgentEvent) -> None:
        nonlocal events
        events += 1
        if settled is not None and isinstance(event, ToolSettledEvent):
            settled[event.tool_call_id] = event.duration_ms

    return BatchEnv(tools=tools, cwd=CWD, on_event=sink, budget=ConcurrencyBudget(64))


async def overhead(name: str, total: int, per_reply: int) -> tuple[float, float]:
    """(µs per call through the scheduler, µs per direct execute) for `total` calls."""
    e = env()
    calls = [
        [
            ToolCall(id=f"c{r}-{i}", name=name, arguments='{"path": "README.md"}')
            for i in range(per_reply)
        ]
        for r in range(total // per_reply)
    ]
    await run_batch(calls[0], e)  # warm up imports and caches
    t0 = time.perf_counter()
    for batch in calls:
        await run_batch(batch, e, NEVER)
    scheduled = (time.perf_counter() - t0) / total * 1e6
    tool = e.tools.get(name)
    assert tool is not None
    args = NoopParams(path="README.md")
    ctx = ToolContext("c", CWD)
    t0 = time.perf_counter()
    for _ in range(total):
        await tool.execute(args, NEVER, ctx)
    direct = (time.perf_counter() - t0) / total * 1e6
    return scheduled, direct


def ideal_makespan(durations: list[float], slots: int) -> float:
    """Greedy list scheduling in call order with zero overhead (what a perfect window does)."""
    free = [0.0] * slots
    for d in durations:
        start = heapq.heappop(free)
        heapq.heappush(free, start + d)
    return max(free)


async def packing(n: int, seed: int) -> None:
    rng = random.Random(seed)
    durations = [rng.uniform(1.0, 20.0) for _ in range(n)]
    realised: dict[str, float] = {}
    e = env(realised)
    calls = [
        ToolCall(id=f"s{i}", name="sleep", arguments=f'{{"ms": {d:.3f}}}')
        for i, d in enumerate(durations)
    ]
    t0 = time.perf_counter()
    await run_batch(calls, e)
    window_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    for w in range(0, n, 5):  # the same-run baseline: fixed waves of 5
        await run_batch(calls[w : w + 5], e)
    waves_ms = (time.perf_counter() - t0) * 1000
    ideal = ideal_makespan(durations, 5)
    ideal_realised = ideal_makespan([realised[c.id] for c in calls], 5)
    ideal_waves = sum(max(durations[w : w + 5]) for w in range(0, n, 5))
    print(f"{n} safe calls of 1-20 ms (seed {seed}), window of 5:")
    print(f"  sliding window makespan   {window_ms:8.1f} ms")
    print(
        f"  ideal 5-slot makespan     {ideal:8.1f} ms   ratio {window_ms / ideal:.3f}"
        " (target <= 1.10)"
    )
    print(
        f"  ideal for the realised durations {ideal_realised:.1f} ms   ratio"
        f" {window_ms / ideal_realised:.3f} (scheduling alone)"
    )
    print(
        f"  fixed waves of 5          {waves_ms:8.1f} ms   ratio {waves_ms / ideal_waves:.3f}"
        f" to its own ideal {ideal_waves:.1f} ms (sleep overshoot)"
    )
    print(f"  speed-up over waves       {waves_ms / window_ms:8.2f}x")


async def main(args: argparse.Namespace) -> None:
    global ASYNCIO_SLEEP
    ASYNCIO_SLEEP = args.asyncio_sleep
    for label, name in (("safe", "noop_safe"), ("serial", "noop_serial")):
        scheduled, direct = await overhead(name, args.calls, args.per_reply)
        print(
            f"{args.calls} no-op {label} calls, {args.per_reply} per reply: "
            f"{scheduled:6.1f} µs/call through the pipeline "
            f"(direct execute {direct:.2f} µs/call; overhead {scheduled - direct:.1f} µs, "
            f"target <= 100)"
        )
    await packing(args.packing_calls, args.seed)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--per-reply", type=int, default=10)
    parser.add_argument("--packing-calls", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--asyncio-sleep", action="store_true")
    asyncio.run(main(parser.parse_args()))

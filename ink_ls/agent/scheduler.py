"""The batch scheduler (spec §4–5): runs the tool calls of one assistant reply.

Serial calls run one at a time in call order and are barriers; consecutive concurrency-safe
calls form a chunk that is validated and gated in call order, then runs in a sliding window
(at most `max_parallel` at once, each leaf call also holding a slot of the process budget).
`tool_settled` is emitted in completion order, `tool_end` in call order by prefix flush.
After a cancel, running calls share one grace deadline; calls still running then are
abandoned (and asyncio-cancelled), late results are dropped. Nothing here talks to a model.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ink_ls.agent import pipeline
from ink_ls.agent._access import Plan, dependencies, plan
from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.events import (
    AgentEvent,
    EventSink,
    ToolEndEvent,
    ToolRunningEvent,
    ToolSettledEvent,
    ToolStartEvent,
    ignore_events,
)
from ink_ls.agent.gate import Gate, allow_all
from ink_ls.agent.messages import ToolCall
from ink_ls.agent.pipeline import CallResult, PreparedCall
from ink_ls.agent.signal import NEVER, CancelSignal
from ink_ls.tools.base import (
    DiskFiles,
    DiskWriter,
    FileView,
    FileWriter,
    SubagentRunner,
    ToolContext,
    ToolRegistry,
)

log = logging.getLogger(__name__)

DEFAULT_WINDOW = 5
DEFAULT_GRACE_SECONDS = 10.0


@dataclass
class BatchEnv:
    """Everything a batch needs besides its calls and signal."""

    tools: ToolRegistry
    cwd: Path
    gate: Gate = allow_all
    files: FileView = field(default_factory=DiskFiles)
    writer: FileWriter = field(default_factory=DiskWriter)
    subagent: SubagentRunner | None = None
    on_event: EventSink = ignore_events
    grace_seconds: float = DEFAULT_GRACE_SECONDS
    max_parallel: int = DEFAULT_WINDOW
    budget: ConcurrencyBudget | None = None
    """The process-wide budget; None means only the per-chunk window limits concurrency."""
    path_aware: bool = False
    """Spec §9 (opt-in): calls with declared, disjoint paths overlap even if not safe."""


def segments(calls: list[ToolCall], tools: ToolRegistry) -> list[list[int]]:
    """Call indices grouped into chunks: runs of safe calls, and each serial call alone.

    A call of an unknown tool never executes, so it does not break a chunk.
    """
    out: list[list[int]] = []
    current: list[int] = []
    for i, call in enumerate(calls):
        tool = tools.get(call.name)
        if tool is None or tool.concurrency_safe:
            current.append(i)
            continue
        if current:
            out.append(current)
            current = []
        out.append([i])
    if current:
        out.append(current)
    return out


@dataclass
class _Slot:
    """A call that really runs: its task, start time, and the slots it holds."""

    task: asyncio.Task[None]
    started: float
    budget: ConcurrencyBudget | None
    window: ConcurrencyBudget
    released: bool = False

    def release(self) -> None:
        """Give both slots back, once (an abandoned call may still end later)."""
        if not self.released:
            self.released = True
            if self.budget is not None:
                self.budget.release()
            self.window.release()


class _Batch:
    def __init__(self, calls: list[ToolCall], env: BatchEnv, signal: CancelSignal) -> None:
        self.calls = calls
        self.env = env
        self.signal = signal
        self.results: list[CallResult | None] = [None] * len(calls)
        self._delivered = 0
        self._loop = asyncio.get_running_loop()
        self._running: dict[int, _Slot] = {}
        self._outstanding = 0
        self._chunk_done: asyncio.Future[None] | None = None
        self._grace: asyncio.TimerHandle | None = None
        self._plan: Plan | None = None
        self._deps: dict[int, list[int]] = {}
        self._ended: dict[int, asyncio.Future[None]] = {}

    def emit(self, event: AgentEvent) -> None:
        try:
            self.env.on_event(event)
        except Exception:  # a broken listener must not break the batch
            log.exception("event listener failed on %s", event.type)

    async def run(self) -> list[CallResult]:
        unsubscribe = self.signal.subscribe(self._on_cancel)
        try:
            if self.env.path_aware:
                self._plan = plan(self.calls, self.env.tools, self.env.cwd)
                chunks = self._plan.regions
            else:
                chunks = segments(self.calls, self.env.tools)
            for chunk in chunks:
                await self._run_chunk(chunk)
        finally:
            unsubscribe()
            if self._grace is not None:
                self._grace.cancel()
        # Defensive: every call leaves with exactly one result, in call order.
        for i, r in enumerate(self.results):
            if r is None:
                self._set(i, pipeline.interrupted_result(self.calls[i]))
        return [r for r in self.results if r is not None]

    def _set(self, i: int, result: CallResult) -> None:
        self.results[i] = result
        self._flush()

    def _flush(self) -> None:
        results, n = self.results, len(self.results)
        while self._delivered < n:
            r = results[self._delivered]
            if r is None:
                return
            self._delivered += 1
            self.emit(
                ToolEndEvent(
                    tool_call_id=r.tool_call_id,
                    tool_name=r.tool_name,
                    content=r.content,
                    is_error=r.is_error,
                    display=r.display,
                    duration_ms=r.duration_ms,
                )
            )

    async def _run_chunk(self, chunk: list[int]) -> None:
        known = self._plan
        decoded = [
            known.decoded[i] if known else pipeline.decode_arguments(self.calls[i].arguments)
            for i in chunk
        ]
        for i, value in zip(chunk, decoded, strict=True):
            call = self.calls[i]
            self.emit(
                ToolStartEvent(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    arguments=pipeline.arguments_object(value),
                )
            )
        approved: list[tuple[int, PreparedCall]] = []
        for i, value in zip(chunk, decoded, strict=True):
            call = self.calls[i]
            if self.signal.cancelled:
                self._set(i, pipeline.interrupted_result(call))
                continue
            prepared = (
                known.prepared[i] if known else pipeline.prepare(call, self.env.tools, value)
            )
            if isinstance(prepared, CallResult):
                self._set(i, prepared)
                continue
            blocked = await pipeline.check_gate(prepared, self.env.gate, self.signal, self.env.cwd)
            if blocked is not None:
                self._set(i, blocked)
                continue
            approved.append((i, prepared))
        if not approved:
            return
        if known is not None:
            self._deps = dependencies(approved, known.access)
            self._ended = {i: self._loop.create_future() for i, _ in approved}
        window = ConcurrencyBudget(self.env.max_parallel)
        self._chunk_done = self._loop.create_future()
        self._outstanding = len(approved)
        tasks = []
        for i, prepared in approved:
            task = self._loop.create_task(self._run_one(i, prepared, window))
            task.add_done_callback(partial(self._finished, i))
            tasks.append(task)
        try:
            await self._chunk_done
        except asyncio.CancelledError:  # the run itself was cancelled: leave no orphans
            for task in tasks:
                task.cancel()
            raise

    async def _run_one(self, i: int, prepared: PreparedCall, window: ConcurrencyBudget) -> None:
        """Wait for conflicting calls, a window slot and (leaf calls) a budget slot; execute."""
        call, signal = prepared.call, self.signal
        for dep in self._deps.get(i, ()):
            if not await _wait_unless_cancelled(self._ended[dep], signal):
                return self._settle(i, pipeline.interrupted_result(call))
        if not window.try_acquire() and not await window.acquire(signal):
            return self._settle(i, pipeline.interrupted_result(call))
        budget = None if prepared.tool.delegates else self.env.budget
        if budget is not None and not budget.try_acquire() and not await budget.acquire(signal):
            window.release()
            return self._settle(i, pipeline.interrupted_result(call))
        if signal.cancelled:  # granted in the same tick as the cancel: never ran
            if budget is not None:
                budget.release()
            window.release()
            return self._settle(i, pipeline.interrupted_result(call))
        task = asyncio.current_task()
        assert task is not None
        self._running[i] = _Slot(task, time.perf_counter(), budget, window)
        self.emit(ToolRunningEvent(tool_call_id=call.id, tool_name=call.name))
        context = ToolContext(
            tool_call_id=call.id,
            cwd=self.env.cwd,
            files=self.env.files,
            writer=self.env.writer,
            subagent=self.env.subagent,
        )
        result = await pipeline.execute(prepared, signal, context)
        # Settled inside the call's own task: the freed slot reaches the next call one loop
        # iteration sooner than from a done-callback, and `tool_settled` still comes first.
        self._settle(i, result)

    def _settle(self, i: int, result: CallResult) -> None:
        """Record the end of a call (whether it ran or not); a late result is dropped."""
        self._mark_ended(i)
        call = self.calls[i]
        if self.results[i] is not None:  # abandoned at the grace deadline
            log.warning("late result of abandoned tool call %s (%s) dropped", call.id, call.name)
            return
        slot = self._running.pop(i, None)
        if slot is not None:
            self.emit(
                ToolSettledEvent(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    is_error=result.is_error,
                    duration_ms=result.duration_ms or 0.0,
                )
            )
        self._set(i, result)
        if slot is not None:
            slot.release()
        self._one_done()

    def _finished(self, i: int, task: asyncio.Task[None]) -> None:
        """Done-callback: covers calls whose task ended without settling (cancel, crash)."""
        exc = None if task.cancelled() else task.exception()
        if self.results[i] is not None:
            return
        call = self.calls[i]
        if exc is None:
            result = pipeline.interrupted_result(call)
        else:
            log.error("tool call %s (%s) crashed the scheduler", call.id, call.name, exc_info=exc)
            result = pipeline.error_result(call, f"Error: tool {call.name} threw: {exc}")
        self._settle(i, result)

    def _mark_ended(self, i: int) -> None:
        ended = self._ended.get(i)
        if ended is not None and not ended.done():
            ended.set_result(None)

    def _one_done(self) -> None:
        self._outstanding -= 1
        if self._outstanding == 0 and self._chunk_done is not None:
            if not self._chunk_done.done():
                self._chunk_done.set_result(None)

    def _on_cancel(self) -> None:
        # One shared deadline per batch, armed only when a cancel finds calls in flight.
        if self._running and self._grace is None:
            self._grace = self._loop.call_later(self.env.grace_seconds, self._expire)

    def _expire(self) -> None:
        now = time.perf_counter()
        running, self._running = self._running, {}
        for i, slot in running.items():
            call = self.calls[i]
            result = pipeline.abandoned_result(call, self.env.grace_seconds)
            result.duration_ms = (now - slot.started) * 1000.0
            self.emit(
                ToolSettledEvent(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    is_error=True,
                    duration_ms=result.duration_ms,
                )
            )
            slot.release()  # the process budget moves on without the abandoned call
            self._mark_ended(i)
            self._set(i, result)
            log.warning("tool call %s (%s) abandoned after the grace period", call.id, call.name)
            slot.task.cancel()  # beyond the seed: also try to stop the abandoned work
            self._one_done()


async def _wait_unless_cancelled(fut: asyncio.Future[None], signal: CancelSignal) -> bool:
    """Wait for `fut`; False as soon as `signal` fires instead."""
    if signal.cancelled:
        return False
    stop = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait((fut, stop), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    return fut.done() and not signal.cancelled


async def run_batch(
    calls: list[ToolCall], env: BatchEnv, signal: CancelSignal = NEVER
) -> list[CallResult]:
    """Run one reply's calls; returns exactly one result per call, in call order."""
    if not calls:
        return []
    return await _Batch(calls, env, signal).run()


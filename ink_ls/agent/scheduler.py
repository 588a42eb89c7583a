"""The batch scheduler: runs the tool calls of one assistant reply, and their cancellation.

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
from ink_ls.agent._subagent import SubagentRunners, bind_subagent
from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.events import (
    AgentEvent,
    EventSink,
    ToolEndEvent,
    ToolRunningEvent,
    ToolSettledEvent,
    ignore_events,
)
from ink_ls.agent.gate import Gate, allow_all
from ink_ls.agent.pipeline import CallResult, PreparedCall
from ink_ls.core.messages import ToolCall
from ink_ls.core.signal import NEVER, CancelSignal
from ink_ls.core.tool import (
    DiskFiles,
    DiskWriter,
    FileView,
    FileWriter,
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
    subagent: SubagentRunners | None = None
    on_event: EventSink = ignore_events
    grace_seconds: float = DEFAULT_GRACE_SECONDS
    max_parallel: int = DEFAULT_WINDOW
    budget: ConcurrencyBudget | None = None
    """The process-wide budget; None means only the per-chunk window limits concurrency."""
    path_aware: bool = False
    """Calls with declared, disjoint paths overlap even if not safe. The agent always sets it
    from `AgentOptions.path_aware`, which is True by default; False here keeps a bare
    `BatchEnv` (as tests build it) on flag-only planning."""


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
    """A call that really runs: its task, start time, and its process-budget slot."""

    task: asyncio.Task[None]
    started: float
    budget: ConcurrencyBudget | None
    released: bool = False

    def release(self) -> None:
        """Give the budget slot back, once (an abandoned call may still end later)."""
        if not self.released:
            self.released = True
            if self.budget is not None:
                self.budget.release()


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
        # The window: approved calls not started yet, in call order, and the started ones.
        self._pending: list[tuple[int, PreparedCall]] = []
        self._next = 0
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._in_window = 0

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
            self.emit(pipeline.start_event(call, self.env.tools, value, self.env.cwd))
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
        self._deps = dependencies(approved, known.access) if known is not None else {}
        self._chunk_done = self._loop.create_future()
        self._outstanding = len(approved)
        self._pending, self._next, self._tasks = approved, 0, {}
        self._pump()
        try:
            await self._chunk_done
        except asyncio.CancelledError:  # the run itself was cancelled: leave no orphans
            for task in self._tasks.values():
                task.cancel()
            raise

    def _pump(self) -> None:
        """Start waiting calls, in call order, while the window has room.

        Only started calls have a task, so a chunk of thousands of calls costs no more
        than its window. Path-aware: a call whose conflicting predecessors have not ended
        is passed over, and later calls that do not conflict may start before it.
        """
        pending = self._pending
        if self.signal.cancelled:  # nothing starts after a cancel
            waiting, self._pending, self._next = pending[self._next :], [], 0
            for i, prepared in waiting:
                self._settle(i, pipeline.interrupted_result(prepared.call))
            return
        limit = self.env.max_parallel
        if not self._deps:
            while self._in_window < limit and self._next < len(pending):
                i, prepared = pending[self._next]
                self._next += 1
                self._start(i, prepared)
            return
        k = self._next
        while self._in_window < limit and k < len(pending):
            i, prepared = pending[k]
            if any(self.results[d] is None for d in self._deps.get(i, ())):
                k += 1
                continue
            del pending[k]
            self._start(i, prepared)

    def _start(self, i: int, prepared: PreparedCall) -> None:
        self._in_window += 1
        task = self._loop.create_task(self._run_one(i, prepared))
        self._tasks[i] = task
        task.add_done_callback(partial(self._finished, i))

    async def _run_one(self, i: int, prepared: PreparedCall) -> None:
        """Holding a window place: wait for a process-budget slot (leaf calls), then execute."""
        call, signal = prepared.call, self.signal
        budget = None if prepared.tool.delegates else self.env.budget
        if budget is not None and not budget.try_acquire() and not await budget.acquire(signal):
            return self._settle(i, pipeline.interrupted_result(call))
        if signal.cancelled:  # granted in the same tick as the cancel: never ran
            if budget is not None:
                budget.release()
            return self._settle(i, pipeline.interrupted_result(call))
        task = asyncio.current_task()
        assert task is not None
        self._running[i] = _Slot(task, time.perf_counter(), budget)
        self.emit(ToolRunningEvent(tool_call_id=call.id, tool_name=call.name))
        context = ToolContext(
            tool_call_id=call.id,
            cwd=self.env.cwd,
            files=self.env.files,
            writer=self.env.writer,
            # bound to this call, so a task's sub-agent events are tagged with its id
            subagent=bind_subagent(self.env.subagent, call.id),
        )
        result = await pipeline.execute(prepared, signal, context)
        # Settled inside the call's own task: the freed place is refilled in this same loop
        # iteration, and `tool_settled` still comes before the next call's `tool_running`.
        self._settle(i, result)

    def _settle(self, i: int, result: CallResult) -> None:
        """Record the end of a call (whether it ran or not); a late result is dropped."""
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
        if i in self._tasks:
            self._in_window -= 1
        self._one_done()
        self._pump()

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

    def _one_done(self) -> None:
        self._outstanding -= 1
        if self._outstanding == 0 and self._chunk_done is not None:
            if not self._chunk_done.done():
                self._chunk_done.set_result(None)

    def _on_cancel(self) -> None:
        # One shared deadline per batch, armed only when a cancel finds calls in flight.
        if self._running and self._grace is None:
            self._grace = self._loop.call_later(self.env.grace_seconds, self._expire)
        if self._pending:  # calls still waiting for the window never run (not re-entrantly)
            self._loop.call_soon(self._pump)

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
            self._in_window -= 1
            self._set(i, result)
            log.warning("tool call %s (%s) abandoned after the grace period", call.id, call.name)
            slot.task.cancel()  # its result is dropped; still try to stop the abandoned work
            self._one_done()


async def run_batch(
    calls: list[ToolCall], env: BatchEnv, signal: CancelSignal = NEVER
) -> list[CallResult]:
    """Run one reply's calls; returns exactly one result per call, in call order."""
    if not calls:
        return []
    return await _Batch(calls, env, signal).run()


"""The batch scheduler: runs the tool calls of one assistant reply, and their cancellation.

Serial calls run one at a time in call order and are barriers; consecutive concurrency-safe
calls form a chunk that is validated and gated in call order, then runs in a sliding window
(at most `max_parallel` at once, each leaf call also holding a slot of the process budget).
`tool_settled` is emitted in completion order, `tool_end` in call order by prefix flush.
After a cancel, running calls share one grace deadline; calls still running then are
abandoned (and asyncio-cancelled), late results are dropped. Nothing here talks to a model.

Dispatch while streaming: a `Batch` is made before the reply streams and `feed` gets each
call as soon as it is complete. While every call so far is concurrency-safe, valid and
passes the gate without asking (`passes_unasked`), each starts at once in the window; the
first call that is not (serial, needs approval, not yet known) ends early dispatch for the
reply, and it and everything after it wait for `close`, as in the seed. A call refused at
validation does not end it (it never runs; its result is kept). Results are delivered
(`tool_end`) only after `close`, in call order. `refuse` replaces every result (a reply cut
by the token limit), cancelling started calls through the grace path first.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from functools import partial

from ink_ls.agent import pipeline
from ink_ls.agent._access import Plan, dependencies, plan
from ink_ls.agent._subagent import bind_subagent
from ink_ls.agent._window import (
    DEFAULT_GRACE_SECONDS,
    DEFAULT_WINDOW,
    BatchEnv,
    Slot,
    segments,
)
from ink_ls.agent.events import (
    AgentEvent,
    ToolEndEvent,
    ToolProgressEvent,
    ToolRunningEvent,
    ToolSettledEvent,
)
from ink_ls.agent.gate import GateRequest, passes_unasked
from ink_ls.agent.pipeline import CallResult, PreparedCall
from ink_ls.core.messages import ToolCall
from ink_ls.core.signal import NEVER, CancelController, CancelSignal
from ink_ls.core.tool import ToolContext

__all__ = [
    "DEFAULT_GRACE_SECONDS",
    "DEFAULT_WINDOW",
    "Batch",
    "BatchEnv",
    "run_batch",
    "segments",
]

log = logging.getLogger(__name__)


class Batch:
    """The calls of one reply: `feed` them while the reply streams, then `close` (or `refuse`).

    Every exit path leaves each call of the batch with exactly one result; call `dispose`
    when done (idempotent; cancels leftover tasks if the caller itself was cancelled).
    """

    def __init__(self, env: BatchEnv, signal: CancelSignal = NEVER, *, early: bool = True) -> None:
        self.env = env
        # Our own child signal: a cut reply cancels this batch's calls, not the run.
        self._ctrl = CancelController(signal)
        self.signal = self._ctrl.signal
        self.calls: list[ToolCall] = []
        """During the stream: the calls handled early (a prefix); after close: all calls."""
        self.results: list[CallResult | None] = []
        self._fed: dict[int, ToolCall] = {}
        self._early = early
        self._prefix = 0
        """Calls [0, _prefix) were handled early: registered, then started or refused."""
        self._closed = False
        self._delivered = 0
        self._loop = asyncio.get_running_loop()
        self._running: dict[int, Slot] = {}
        self._outstanding = 0
        self._done: asyncio.Future[None] | None = None
        self._grace: asyncio.TimerHandle | None = None
        self._plan: Plan | None = None
        self._deps: dict[int, list[int]] = {}
        # The window: approved calls not started yet, in call order, and the started ones.
        self._pending: list[tuple[int, PreparedCall]] = []
        self._next = 0
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._gated: set[int] = set()
        """Started early: the gate is asked (it passes unasked) inside the call's task."""
        self._in_window = 0
        self._unsubscribe = self.signal.subscribe(self._on_cancel)

    @property
    def early_calls(self) -> list[ToolCall]:
        """The calls handled while the reply streamed (shown to the user), in call order."""
        return self.calls[: self._prefix]

    def emit(self, event: AgentEvent) -> None:
        try:
            self.env.on_event(event)
        except Exception:  # a broken listener must not break the batch
            log.exception("event listener failed on %s", event.type)

    # -- while the reply streams ------------------------------------------------------------

    def feed(self, index: int, call: ToolCall) -> None:
        """Call `index` of the reply is complete in the stream; start it if it may run now."""
        if self._closed or not self._early:
            return
        self._fed[index] = call
        while self._early and self._prefix in self._fed:
            if not self._take_early(self._prefix, self._fed[self._prefix]):
                self._early = False  # this call waits for the reply's end, and all after it
                return
            self._prefix += 1

    def _take_early(self, i: int, call: ToolCall) -> bool:
        if self.signal.cancelled:
            return False
        value = pipeline.decode_arguments(call.arguments)
        prepared = pipeline.prepare(call, self.env.tools, value)
        tool = self.env.tools.get(call.name)
        if isinstance(prepared, CallResult):
            if tool is not None and not tool.concurrency_safe:
                return False  # keeps the early prefix inside the first chunk of the seed
            self._register(i, call, value)
            self.results[i] = prepared  # as now: refused, delivered in order after the reply
            return True
        request = GateRequest(prepared.tool, call.id, prepared.args, self.env.cwd)
        if not prepared.tool.concurrency_safe or not passes_unasked(self.env.gate, request):
            return False
        self._register(i, call, value)
        self._gated.add(i)
        self._pending.append((i, prepared))
        self._outstanding += 1
        self._pump()
        return True

    def _register(self, i: int, call: ToolCall, value: object) -> None:
        self.calls.append(call)
        self.results.append(None)
        self._tool_start(call, value)

    def _tool_start(self, call: ToolCall, value: object) -> None:
        self.emit(pipeline.start_event(call, self.env.tools, value, self.env.cwd))

    # -- after the reply ----------------------------------------------------------------------

    def _adopt(self, calls: list[ToolCall]) -> None:
        """Take the final call list; calls handled early keep their place (same calls)."""
        for n, early in enumerate(self.calls):
            if n >= len(calls) or calls[n] != early:
                # never by our own client (ready calls are frozen); a Model that breaks it
                log.error("the final reply changed tool call %s after it had started", early.id)
        self.calls = list(calls)
        self.results.extend([None] * (len(calls) - len(self.results)))
        self._early = False

    async def close(self, calls: list[ToolCall]) -> list[CallResult]:
        """The reply is complete: run the rest, deliver everything in call order."""
        self._adopt(calls)
        self._closed = True
        self._flush()
        if self.env.path_aware:
            self._plan = plan(self.calls, self.env.tools, self.env.cwd)
            chunks = self._plan.regions
        else:
            chunks = segments(self.calls, self.env.tools)
        for chunk in chunks:
            await self._run_chunk(chunk)
        await self._drain()  # early calls outside any chunk (a final reply that changed)
        return self._finish()

    async def refuse(
        self, calls: list[ToolCall], make: Callable[[ToolCall], CallResult], reason: str
    ) -> list[CallResult]:
        """Run none of `calls`: cancel the started ones (grace path), give each `make(call)`."""
        self._adopt(calls)
        self._ctrl.cancel(reason)
        await self._drain()
        for i in range(self._prefix):  # replace what the started calls returned, then deliver
            self.results[i] = make(self.calls[i])
        self._closed = True
        self._flush()
        for i in range(self._prefix, len(self.calls)):  # never registered: start, then end
            call = self.calls[i]
            self._tool_start(call, pipeline.decode_arguments(call.arguments))
            self._set(i, make(call))
        return self._finish()

    async def abort(self) -> list[CallResult]:
        """After a cancel mid-stream: the early calls' results, once they stopped (grace)."""
        self._adopt(self.early_calls)
        self._ctrl.cancel("cancelled while the reply streamed")
        await self._drain()
        self._closed = True
        self._flush()
        return self._finish()

    def _finish(self) -> list[CallResult]:
        # Defensive: every call leaves with exactly one result, in call order.
        for i, r in enumerate(self.results):
            if r is None:
                self._set(i, pipeline.interrupted_result(self.calls[i]))
        self.dispose()
        return [r for r in self.results if r is not None]

    def dispose(self) -> None:
        """Stop listening; cancel tasks still here (only when the caller was cancelled)."""
        self._unsubscribe()
        self._ctrl.detach()
        if self._grace is not None:
            self._grace.cancel()
        for task in self._tasks.values():
            task.cancel()

    async def _drain(self) -> None:
        """Wait until every started or queued call has settled (or been abandoned)."""
        if self._outstanding > 0:
            self._done = self._loop.create_future()
            await self._done

    def _set(self, i: int, result: CallResult) -> None:
        self.results[i] = result
        self._flush()

    def _flush(self) -> None:
        if not self._closed:  # results wait for the end of the reply
            return
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
                    cancelled=r.cancelled,
                )
            )

    async def _run_chunk(self, chunk: list[int]) -> None:
        known = self._plan
        fresh = [i for i in chunk if i >= self._prefix]
        decoded = {
            i: known.decoded[i] if known else pipeline.decode_arguments(self.calls[i].arguments)
            for i in fresh
        }
        for i in fresh:
            self._tool_start(self.calls[i], decoded[i])
        approved: list[tuple[int, PreparedCall]] = []
        for i in fresh:
            call = self.calls[i]
            if self.signal.cancelled:
                self._set(i, pipeline.interrupted_result(call))
                continue
            prepared = (
                known.prepared[i] if known else pipeline.prepare(call, self.env.tools, decoded[i])
            )
            if isinstance(prepared, CallResult):
                self._set(i, prepared)
                continue
            blocked = await pipeline.check_gate(prepared, self.env.gate, self.signal, self.env.cwd)
            if blocked is not None:
                self._set(i, blocked)
                continue
            approved.append((i, prepared))
        if known is not None and approved:
            early = [
                (i, p)
                for i in chunk
                if i < self._prefix
                if isinstance(p := known.prepared[i], PreparedCall)
            ]
            self._deps = dependencies(early + approved, known.access)
        self._pending = self._pending[self._next :] + approved
        self._next = 0
        self._outstanding += len(approved)
        self._pump()
        try:
            await self._drain()
        except asyncio.CancelledError:  # the run itself was cancelled: leave no orphans
            self.dispose()
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
        if i in self._gated:  # started early: the gate passes it unasked, but still decides
            blocked = await pipeline.check_gate(prepared, self.env.gate, signal, self.env.cwd)
            if blocked is not None:
                return self._settle(i, blocked)
        budget = None if prepared.tool.delegates else self.env.budget
        if budget is not None and not budget.try_acquire() and not await budget.acquire(signal):
            return self._settle(i, pipeline.interrupted_result(call))
        if signal.cancelled:  # granted in the same tick as the cancel: never ran
            if budget is not None:
                budget.release()
            return self._settle(i, pipeline.interrupted_result(call))
        task = asyncio.current_task()
        assert task is not None
        self._running[i] = Slot(task, time.perf_counter(), budget)
        self.emit(ToolRunningEvent(tool_call_id=call.id, tool_name=call.name))
        context = ToolContext(
            tool_call_id=call.id,
            cwd=self.env.cwd,
            files=self.env.files,
            writer=self.env.writer,
            # bound to this call, so a task's sub-agent events are tagged with its id
            subagent=bind_subagent(self.env.subagent, call.id),
            progress=partial(self._progress, i),
        )
        result = await pipeline.execute(prepared, signal, context)
        # Settled inside the call's own task: the freed place is refilled in this same loop
        # iteration, and `tool_settled` still comes before the next call's `tool_running`.
        self._settle(i, result)

    def _progress(self, i: int, message: str) -> None:
        if self.results[i] is None:  # nothing after the call's end (or its abandonment)
            call = self.calls[i]
            self.emit(ToolProgressEvent(tool_call_id=call.id, tool_name=call.name, message=message))

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
                    cancelled=result.cancelled,
                )
            )
        self._set(i, result)
        if slot is not None:
            slot.release()
        if self._tasks.pop(i, None) is not None:
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
        if self._outstanding == 0 and self._done is not None and not self._done.done():
            self._done.set_result(None)

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
                    cancelled=True,
                )
            )
            slot.release()  # the process budget moves on without the abandoned call
            self._tasks.pop(i, None)
            self._in_window -= 1
            self._set(i, result)
            log.warning("tool call %s (%s) abandoned after the grace period", call.id, call.name)
            slot.task.cancel()  # its result is dropped; still try to stop the abandoned work
            self._one_done()


async def run_batch(
    calls: list[ToolCall], env: BatchEnv, signal: CancelSignal = NEVER
) -> list[CallResult]:
    """Run one complete reply's calls; returns exactly one result per call, in call order."""
    if not calls:
        return []
    batch = Batch(env, signal, early=False)
    try:
        return await batch.close(calls)
    finally:
        batch.dispose()

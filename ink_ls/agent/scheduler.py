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
from collections.abc import Callable
from functools import partial

from ink_ls.agent import pipeline
from ink_ls.agent._access import Plan, dependencies, plan
from ink_ls.agent._batch_env import DEFAULT_GRACE_SECONDS, DEFAULT_WINDOW, BatchEnv
from ink_ls.agent._delivery import Delivery
from ink_ls.agent._grace import Grace, Slot
from ink_ls.agent._subagent import bind_subagent
from ink_ls.agent._window import Waiting, Window
from ink_ls.agent.events import (
    AgentEvent,
    ToolOutputEvent,
    ToolProgressEvent,
    ToolRunningEvent,
)
from ink_ls.agent.gate import GateRequest, passes_unasked
from ink_ls.agent.hooking import admit, after_call
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
]

log = logging.getLogger(__name__)


class Batch:
    """The calls of one reply: `feed` them while the reply streams, then `close` (or `refuse`).

    Every exit path leaves each call of the batch with exactly one result; call `dispose`
    when done (idempotent; cancels leftover tasks if the caller itself was cancelled). The
    concerns live in their own parts: the start order and limit (`Window`), the order of
    delivery (`Delivery`), the grace deadline after a cancel (`Grace`) and access conflicts
    (`_access.plan`); this class runs calls and keeps the early-dispatch prefix.
    """

    def __init__(self, env: BatchEnv, signal: CancelSignal = NEVER, *, early: bool = True) -> None:
        self.env = env
        # Our own child signal: a cut reply cancels this batch's calls, not the run.
        self._ctrl = CancelController(signal)
        self.signal = self._ctrl.signal
        self.calls: list[ToolCall] = []
        """During the stream: the calls handled early (a prefix); after close: all calls."""
        self.delivery = Delivery(self.emit)
        self.window = Window(env.max_parallel)
        self.grace = Grace(env.grace_seconds, self._abandon, clock=env.clock)
        self._plan: Plan | None = None
        self._early = _Early(early)
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._outstanding = 0
        self._done: asyncio.Future[None] | None = None
        self._unsubscribe = self.signal.subscribe(self._on_cancel)

    @property
    def results(self) -> list[CallResult | None]:
        return self.delivery.results

    @property
    def early_calls(self) -> list[ToolCall]:
        """The calls handled while the reply streamed (shown to the user), in call order."""
        return self.calls[: self._early.prefix]

    def emit(self, event: AgentEvent) -> None:
        try:
            self.env.on_event(event)
        except Exception:  # a broken listener must not break the batch
            log.exception("event listener failed on %s", event.type)

    # -- while the reply streams ------------------------------------------------------------

    def feed(self, index: int, call: ToolCall) -> None:
        """Call `index` of the reply is complete in the stream; start it if it may run now."""
        early = self._early
        if not early.on:
            return
        early.fed[index] = call
        while early.on and early.prefix in early.fed:
            if not self._take_early(early.prefix, early.fed[early.prefix]):
                early.on = False  # this call waits for the reply's end, and all after it
                return
            early.prefix += 1

    def _take_early(self, i: int, call: ToolCall) -> bool:
        if self.signal.cancelled:
            return False
        value = pipeline.decode_arguments(call.arguments)
        prepared = pipeline.prepare(call, self.env.tools, value)
        tool = self.env.tools.get(call.name)
        if isinstance(prepared, CallResult):
            if tool is not None and not tool.concurrency_safe:
                return False  # keeps the early prefix inside the first chunk of the seed
            self._register(call, value)
            self.delivery.set(i, prepared)  # refused; delivered in order after the reply
            return True
        request = GateRequest(prepared.tool, call.id, prepared.args, self.env.cwd)
        if not prepared.tool.concurrency_safe or not passes_unasked(self.env.gate, request):
            return False
        self._register(call, value)
        self._early.gated.add(i)
        self.window.queue([(i, prepared)])
        self._outstanding += 1
        self._pump()
        return True

    def _register(self, call: ToolCall, value: object) -> None:
        self.calls.append(call)
        self.delivery.add()
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
        self.delivery.add(len(calls) - len(self.calls))
        self.calls = list(calls)
        self._early.on = False

    async def close(self, calls: list[ToolCall]) -> list[CallResult]:
        """The reply is complete: run the rest, deliver everything in call order."""
        self._adopt(calls)
        self.delivery.close()
        self._plan = plan(self.calls, self.env.tools, self.env.cwd)
        for chunk in self._plan.regions:
            await self._run_chunk(chunk, self._plan)
        await self._drain()  # early calls outside any chunk (a final reply that changed)
        return self._finish()

    async def refuse(
        self, calls: list[ToolCall], make: Callable[[ToolCall], CallResult], reason: str
    ) -> list[CallResult]:
        """Run none of `calls`: cancel the started ones (grace path), give each `make(call)`."""
        self._adopt(calls)
        self._ctrl.cancel(reason)
        await self._drain()
        prefix = self._early.prefix
        for i in range(prefix):  # replace what the started calls returned, then deliver
            self.delivery.results[i] = make(self.calls[i])
        self.delivery.close()
        for i in range(prefix, len(self.calls)):  # never registered: start, then end
            call = self.calls[i]
            self._tool_start(call, pipeline.decode_arguments(call.arguments))
            self.delivery.set(i, make(call))
        return self._finish()

    async def abort(self) -> list[CallResult]:
        """After a cancel mid-stream: the early calls' results, once they stopped (grace)."""
        self._adopt(self.early_calls)
        self._ctrl.cancel("cancelled while the reply streamed")
        await self._drain()
        self.delivery.close()
        return self._finish()

    def _finish(self) -> list[CallResult]:
        # Defensive: every call leaves with exactly one result, in call order.
        for i in self.delivery.missing():
            self.delivery.set(i, pipeline.interrupted_result(self.calls[i]))
        self.dispose()
        return self.delivery.ordered()

    def dispose(self) -> None:
        """Stop listening; cancel tasks still here (only when the caller was cancelled)."""
        self._unsubscribe()
        self._ctrl.detach()
        self.grace.dispose()
        for task in self._tasks.values():
            task.cancel()

    async def _drain(self) -> None:
        """Wait until every started or queued call has settled (or been abandoned)."""
        if self._outstanding > 0:
            self._done = asyncio.get_running_loop().create_future()
            await self._done

    async def _run_chunk(self, chunk: list[int], known: Plan) -> None:
        fresh = [i for i in chunk if i >= self._early.prefix]
        for i in fresh:
            self._tool_start(self.calls[i], known.decoded[i])
        approved: list[Waiting] = []
        for i in fresh:
            passed = await self._check(i, known.prepared[i])
            if passed is not None:
                approved.append((i, passed))
        if approved:
            early = [
                (i, p)
                for i in chunk
                if i < self._early.prefix
                if isinstance(p := known.prepared[i], PreparedCall)
            ]
            self.window.deps = dependencies(early + approved, known.access)
        self.window.queue(approved)
        self._outstanding += len(approved)
        self._pump()
        try:
            await self._drain()
        except asyncio.CancelledError:  # the run itself was cancelled: leave no orphans
            self.dispose()
            raise

    async def _check(self, i: int, prepared: PreparedCall | CallResult) -> PreparedCall | None:
        """Validation and the gate, in call order: the call if it may run, else its result is
        set (refused, blocked, or interrupted by a cancel)."""
        if self.signal.cancelled:
            self.delivery.set(i, pipeline.interrupted_result(self.calls[i]))
            return None
        if isinstance(prepared, CallResult):
            self.delivery.set(i, prepared)
            return None
        admitted = await admit(prepared, self.env.gate, self.env.hooks, self.signal, self.env.cwd)
        if isinstance(admitted, CallResult):
            self.delivery.set(i, admitted)
            return None
        return admitted

    def _pump(self) -> None:
        """Start waiting calls, in call order, while the window has room (nothing starts
        after a cancel: waiting calls end as interrupted)."""
        if self.signal.cancelled:
            for i, prepared in self.window.drop_waiting():
                self._settle(i, pipeline.interrupted_result(prepared.call))
            return
        for i, prepared in self.window.ready(self.delivery.has):
            task = asyncio.get_running_loop().create_task(self._run_one(i, prepared))
            self._tasks[i] = task
            task.add_done_callback(partial(self._finished, i))

    async def _run_one(self, i: int, prepared: PreparedCall) -> None:
        """Holding a window place: wait for a process-budget slot (leaf calls), then execute."""
        call, signal = prepared.call, self.signal
        if i in self._early.gated:  # started early: the gate passes it unasked, but decides
            admitted = await admit(prepared, self.env.gate, self.env.hooks, signal, self.env.cwd)
            if isinstance(admitted, CallResult):
                return self._settle(i, admitted)
            prepared = admitted
        budget = None if prepared.tool.delegates else self.env.budget
        if budget is not None and not budget.try_acquire() and not await budget.acquire(signal):
            return self._settle(i, pipeline.interrupted_result(call))
        if signal.cancelled:  # granted in the same tick as the cancel: never ran
            if budget is not None:
                budget.release()
            return self._settle(i, pipeline.interrupted_result(call))
        task = asyncio.current_task()
        assert task is not None
        self.grace.track(i, task, budget)
        self.emit(ToolRunningEvent(tool_call_id=call.id, tool_name=call.name))
        context = ToolContext(
            tool_call_id=call.id,
            cwd=self.env.cwd,
            files=self.env.files,
            writer=self.env.writer,
            # bound to this call, so a task's sub-agent events are tagged with its id
            subagent=bind_subagent(self.env.subagent, call.id),
            progress=partial(self._progress, i),
            output=partial(self._output, i),
        )
        result = await pipeline.execute(prepared, signal, context)
        result = await after_call(prepared, result, self.env.hooks, signal, self.env.cwd)
        # Settled inside the call's own task: the freed place is refilled in this same loop
        # iteration, and `tool_settled` still comes before the next call's `tool_running`.
        self._settle(i, result)

    def _progress(self, i: int, message: str) -> None:
        if not self.delivery.has(i):  # nothing after the call's end (or its abandonment)
            call = self.calls[i]
            self.emit(ToolProgressEvent(tool_call_id=call.id, tool_name=call.name, message=message))

    def _output(self, i: int, text: str) -> None:
        if not self.delivery.has(i) and text:
            call = self.calls[i]
            self.emit(ToolOutputEvent(tool_call_id=call.id, tool_name=call.name, text=text))

    def _settle(self, i: int, result: CallResult) -> None:
        """Record the end of a call (whether it ran or not); a late result is dropped."""
        call = self.calls[i]
        if self.delivery.has(i):  # abandoned at the grace deadline
            log.warning("late result of abandoned tool call %s (%s) dropped", call.id, call.name)
            return
        slot = self.grace.end(i)
        if slot is not None:
            self.emit(result.settled_event())
        self.delivery.set(i, result)
        if slot is not None:
            slot.release()
        if self._tasks.pop(i, None) is not None:
            self.window.left()
        self._one_done()
        self._pump()

    def _finished(self, i: int, task: asyncio.Task[None]) -> None:
        """Done-callback: covers calls whose task ended without settling (cancel, crash)."""
        exc = None if task.cancelled() else task.exception()
        if self.delivery.has(i):
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
        self.grace.cancelled()
        if self.window.waiting:  # calls still waiting for the window never run
            asyncio.get_running_loop().call_soon(self._pump)  # (not re-entrantly)

    def _abandon(self, i: int, slot: Slot, ran_ms: float) -> None:
        """The grace deadline passed with call `i` still running: it ends as abandoned."""
        call = self.calls[i]
        result = pipeline.abandoned_result(call, self.env.grace_seconds)
        result.duration_ms = ran_ms
        self.emit(result.settled_event())
        self._tasks.pop(i, None)
        self.window.left()
        self.delivery.set(i, result)
        log.warning("tool call %s (%s) abandoned after the grace period", call.id, call.name)
        self._one_done()


class _Early:
    """Dispatch while streaming: the calls fed so far, the prefix handled early, and those
    started early whose gate is asked inside their own task."""

    def __init__(self, on: bool) -> None:
        self.on = on
        self.fed: dict[int, ToolCall] = {}
        self.prefix = 0
        """Calls [0, prefix) were handled early: registered, then started or refused."""
        self.gated: set[int] = set()


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

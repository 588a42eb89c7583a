"""The agent loop: user message → model (streamed) → tool batch → model … → done.

It owns the history of one conversation and the invariant that every tool call in it has
exactly one result, however a run ends. Tool scheduling lives in `scheduler`, one call's
steps in `pipeline`; this module knows no wire protocol and no concrete model client.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ink_ls.agent import pipeline
from ink_ls.agent._subagent import make_subagent_runner
from ink_ls.agent.budget import DEFAULT_LIMIT, ConcurrencyBudget
from ink_ls.agent.compaction import Compaction, CompactionCancelledError
from ink_ls.agent.context import CompactionSink, ConversationContext, ignore_compaction
from ink_ls.agent.events import (
    AgentEvent,
    EventSink,
    MessageEndEvent,
    ModelQueueEvent,
    RunEndEvent,
    StopReason,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ignore_events,
)
from ink_ls.agent.gate import Gate, allow_all
from ink_ls.agent.hooking import hook_event, stop_feedback, submit
from ink_ls.agent.instructions import ProjectInstructions
from ink_ls.agent.pipeline import CallResult
from ink_ls.agent.scheduler import Batch, BatchEnv
from ink_ls.core.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    user_text,
)
from ink_ls.core.signal import NEVER, CancelledError, CancelSignal, race
from ink_ls.core.tool import DiskFiles, DiskWriter, FileView, FileWriter, ToolRegistry
from ink_ls.model.base import (
    Model,
    ModelError,
    ModelRequest,
    Queued,
    ReplyDone,
    TextDelta,
    ThinkingDelta,
    ToolCallReady,
)
from ink_ls.model.errors import ModelContextLengthError
from ink_ls.model.wire import WireCache

if TYPE_CHECKING:
    from ink_ls.hooks.engine import Hooks

log = logging.getLogger(__name__)


@dataclass
class AgentOptions:
    cwd: Path
    system_prompt: str = ""
    max_turns: int = 100
    """Model requests per run; calls of the last reply beyond it are not executed."""
    grace_seconds: float = 10.0
    max_parallel: int = 5
    """At most this many concurrency-safe calls of one chunk run at once (a sliding window)."""
    context_window: int | None = None
    """The model's window in tokens; None turns compaction off (token counts still flow)."""
    window_source: str | None = None
    """Where the window figure came from (`Ollama runtime`, `configured`, …), for people."""
    compact_threshold: float = 0.8
    """Compact before a request would fill this share of the window."""


@dataclass
class RunResult:
    stop_reason: StopReason
    text: str
    """The final assistant text of this run."""
    usage: Usage
    """Summed over the run's model calls, its sub-agents' included."""
    error: str | None = None


@dataclass
class _Outcome:
    """How one turn ended: `stop` None means the loop goes on."""

    stop: StopReason | None
    text: str | None = None
    """The reply's text (None: keep the text of the previous turn)."""
    usage: Usage = field(default_factory=Usage)
    error: str | None = None


def _noop_message(message: Message) -> None:
    return None


class _Aborted(Exception):
    """The model stream was cut by a cancel; carries the text streamed so far."""

    def __init__(self, partial: str) -> None:
        super().__init__("aborted")
        self.partial = partial


class Agent:
    """One conversation: a model, a tool list, a history, and the loop that drives them."""

    def __init__(
        self,
        model: Model,
        tools: ToolRegistry,
        options: AgentOptions,
        *,
        history: list[Message] | None = None,
        gate: Gate = allow_all,
        files: FileView | None = None,
        writer: FileWriter | None = None,
        on_event: EventSink = ignore_events,
        on_message: Callable[[Message], None] = _noop_message,
        budget: ConcurrencyBudget | None = None,
        on_compaction: CompactionSink = ignore_compaction,
        instructions: ProjectInstructions | None = None,
        hooks: Hooks | None = None,
        wire: WireCache | None = None,
    ) -> None:
        self.model = model
        self.hooks = hooks
        if hooks is not None:  # each hook run is reported as an event of this agent
            hooks.report = lambda report: self._emit(hook_event(report))
        self.tools = tools
        self.options = options
        self.history: list[Message] = history if history is not None else []
        self.gate = gate
        self.files: FileView = files if files is not None else DiskFiles()
        self.writer: FileWriter = writer if writer is not None else DiskWriter()
        self.on_event = on_event
        self.on_message = on_message
        # Without a budget an agent (and its sub-agents) gets one of its own; the factory hands
        # every agent of a process the same one.
        self.budget = budget if budget is not None else ConcurrencyBudget(DEFAULT_LIMIT)
        # the conversation's (kept across its turns); a history of our own gets its own
        self.wire = wire if wire is not None else WireCache()
        self.context = ConversationContext(
            model,
            window=options.context_window,
            source=options.window_source,
            threshold=options.compact_threshold,
            emit=self._emit,
            on_compaction=on_compaction,
            instructions=instructions,
            before_compact=self._pre_compact,
            wire=self.wire,
        )
        self._started = False
        self._running = False
        self._child_usage = Usage()

    def _emit(self, event: AgentEvent) -> None:
        try:
            self.on_event(event)
        except Exception:  # a broken listener must not break the run
            log.exception("event listener failed on %s", event.type)

    def _append(self, message: Message) -> None:
        self.history.append(message)
        try:
            self.on_message(message)
        except Exception:
            log.exception("message listener failed")

    async def compact(self, signal: CancelSignal = NEVER) -> Compaction | None:
        """Compact the conversation now (on demand). None: nothing older to summarise.
        Raises `CompactionError`, or `CompactionCancelledError` with the history untouched."""
        if self._running:
            raise RuntimeError("this agent is running; compact between runs")
        self._running = True
        try:
            system = self.context.system(self.options.system_prompt)
            return await self.context.compact(
                self.history, system, self.tools.schemas(), signal, "manual"
            )
        finally:
            self._running = False

    async def _pre_compact(self, reason: str, signal: CancelSignal) -> None:
        if self.hooks is not None:
            await self.hooks.pre_compact("manual" if reason == "manual" else "auto", signal)

    def count_child_usage(self, usage: Usage) -> None:
        """Add a sub-agent run's tokens to this run's total (`RunResult.usage`)."""
        self._child_usage = self._child_usage.add(usage)

    def child(self) -> Agent:
        """A sub-agent: same model, gate, files, writer and budget; no `task`; fresh history."""
        return Agent(
            self.model,
            self.tools.without("task"),
            replace(self.options, context_window=None),
            gate=self.gate,
            files=self.files,
            writer=self.writer,
            budget=self.budget,
            hooks=self.hooks.for_subagent() if self.hooks is not None else None,
        )

    async def run(self, prompt: str | UserMessage, signal: CancelSignal = NEVER) -> RunResult:
        """Run the loop on one user message until the model stops, a limit, a cancel or an error.

        Emits the events of the run and ends with exactly one `RunEndEvent`.
        """
        if self._running:
            raise RuntimeError("this agent is already running; one run at a time")
        self._running = True
        self._child_usage = Usage()
        usage = Usage()
        text = ""
        stop: StopReason
        error: str | None
        try:
            message = await submit(
                self.hooks, user_text(prompt) if isinstance(prompt, str) else prompt, signal
            )
            if isinstance(message, str):  # a UserPromptSubmit hook refused it
                stop, error = "error", message
            else:
                self._append(message)
                stop, text, usage, error = await self._loop(signal)
        except asyncio.CancelledError:  # the task itself was cancelled (not our signal)
            self._close_dangling(pipeline.interrupted_result)
            self._running = False
            self._emit(RunEndEvent(stop_reason="aborted", usage=usage, text=text))
            raise
        except Exception as exc:  # a bug must still leave a resumable history and one run_end
            log.exception("agent run failed")
            self._close_dangling(pipeline.interrupted_result)
            stop, error = "error", f"internal error: {exc}"
        finally:
            self._running = False
        usage = usage.add(self._child_usage)
        self._emit(RunEndEvent(stop_reason=stop, usage=usage, text=text, error=error))
        return RunResult(stop_reason=stop, text=text, usage=usage, error=error)

    async def _loop(self, signal: CancelSignal) -> tuple[StopReason, str, Usage, str | None]:
        usage = Usage()
        text = ""
        env = self._batch_env()
        if not self._started:
            self._started = True
            self.context.start(self.history, self.tools, self.options.cwd)
        turn = 0
        retried = False
        stop_hook_active = False
        while True:
            if signal.cancelled:
                return "aborted", text, usage, None
            turn += 1
            outcome = await self._request(env, signal, turn, retried=retried)
            if outcome is None:  # compacted after "too long": the same request once more
                retried = True
                turn -= 1
                continue
            retried = False
            usage = usage.add(outcome.usage)
            text = outcome.text if outcome.text is not None else text
            if outcome.stop == "completed":  # Stop hooks may make the model go on
                feedback = await stop_feedback(self.hooks, stop_hook_active, signal)
                if feedback is not None:
                    stop_hook_active = True
                    self._append(feedback)
                    continue
            if outcome.stop is not None:
                return outcome.stop, text, usage, outcome.error

    def _batch_env(self) -> BatchEnv:
        return BatchEnv(
            tools=self.tools,
            cwd=self.options.cwd,
            gate=self.gate,
            files=self.files,
            writer=self.writer,
            subagent=make_subagent_runner(self),
            on_event=self._emit,
            grace_seconds=self.options.grace_seconds,
            max_parallel=self.options.max_parallel,
            budget=self.budget,
            hooks=self.hooks,
        )

    async def _request(
        self, env: BatchEnv, signal: CancelSignal, turn: int, *, retried: bool
    ) -> _Outcome | None:
        """One model request and its batch. None: the endpoint found the request too long and
        the conversation was compacted, so the request is to be sent again."""
        system = self.context.system(self.options.system_prompt)
        # read per request: a tool source (an MCP server) may have changed its list
        schemas = self.tools.schemas()
        try:
            await self.context.before_request(self.history, system, schemas, signal)
        except CompactionCancelledError:
            return _Outcome("aborted")
        request = ModelRequest(system, list(self.history), schemas, wire=self.wire)
        # Calls of the last allowed turn are never executed, so none starts early there.
        batch = Batch(env, signal, early=turn < self.options.max_turns)
        try:
            return await self._turn(request, batch, signal, turn)
        except ModelContextLengthError as exc:  # before any byte: nothing started
            return await self._overflow(exc, request, signal, retried=retried)
        finally:
            batch.dispose()

    async def _overflow(
        self,
        exc: ModelContextLengthError,
        request: ModelRequest,
        signal: CancelSignal,
        *,
        retried: bool,
    ) -> _Outcome | None:
        """The endpoint refused the request as too long: compact once (None: send it again)."""
        if retried:
            return _Outcome("error", error=str(exc))
        try:
            compacted = await self.context.overflow(
                self.history, request.system, request.tools, signal, exc.body_excerpt
            )
        except CompactionCancelledError:
            return _Outcome("aborted")
        return None if compacted else _Outcome("error", error=str(exc))

    async def _turn(
        self, request: ModelRequest, batch: Batch, signal: CancelSignal, turn: int
    ) -> _Outcome:
        """One model reply and its tool batch; `stop` is None when the loop goes on."""
        reply = await self._reply(request, batch, signal)
        if isinstance(reply, _Outcome):
            return reply
        self._add_reply(reply)
        if signal.cancelled:
            await self._cancelled_after_reply(batch, reply.tool_calls)
            return _Outcome("aborted", reply.text, reply.usage)
        return await self._run_calls(reply, batch, signal, turn)

    async def _reply(
        self, request: ModelRequest, batch: Batch, signal: CancelSignal
    ) -> AssistantMessage | _Outcome:
        """The streamed reply, or how the turn ended without a usable one (a cancel, a failed
        request, a reply that ended with an error)."""
        try:
            reply = await self._stream(request, signal, batch)
        except _Aborted as exc:
            partial = AssistantMessage(text=exc.partial, stop_reason="aborted")
            await self._abort_early(batch, partial)
            return _Outcome("aborted", exc.partial or None)
        except ModelContextLengthError:
            if signal.cancelled:
                return _Outcome("aborted")
            raise  # the loop compacts and asks again
        except ModelError as exc:
            if signal.cancelled:
                await self._abort_early(batch, AssistantMessage(stop_reason="aborted"))
                return _Outcome("aborted")
            await batch.refuse(batch.early_calls, pipeline.failed_reply_result, str(exc))
            return _Outcome("error", error=str(exc))
        if reply.stop_reason == "error":  # never execute calls of a failed reply
            error = reply.error or "the model reply ended with an error"
            await batch.refuse(batch.early_calls, pipeline.failed_reply_result, error)
            return _Outcome("error", reply.text, reply.usage, error)
        if reply.stop_reason == "aborted":  # the client's own end on cancel
            await self._abort_early(batch, reply, always=True)
            return _Outcome("aborted", reply.text, reply.usage)
        return reply

    async def _cancelled_after_reply(self, batch: Batch, calls: list[ToolCall]) -> None:
        """A cancel right after the reply: started calls get grace, the rest never run."""
        if batch.early_calls:
            self._append_results(await batch.close(calls))
        else:
            self._close_dangling(pipeline.interrupted_result)

    async def _run_calls(
        self, reply: AssistantMessage, batch: Batch, signal: CancelSignal, turn: int
    ) -> _Outcome:
        """The reply's calls: run (or refused when the reply was cut or the turn limit is
        reached), their results appended to the history."""
        calls, text, usage = reply.tool_calls, reply.text, reply.usage
        if not calls:
            cut = reply.stop_reason == "max_tokens"
            return _Outcome("max_tokens" if cut else "completed", text, usage)
        last = turn >= self.options.max_turns
        if reply.stop_reason == "max_tokens":
            reason = "the reply hit the output token limit"
            self._append_results(await batch.refuse(calls, pipeline.truncated_reply_result, reason))
            return _Outcome("max_iterations" if last else None, text, usage)
        if last:
            self._synthesize(calls, pipeline.max_turns_result)
            return _Outcome("max_iterations", text, usage)
        self._append_results(await batch.close(calls))
        self.context.touched(calls, self.tools, self.options.cwd)
        return _Outcome("aborted" if signal.cancelled else None, text, usage)

    def _append_results(self, results: list[CallResult]) -> None:
        self._append(ToolResultMessage(results=[r.entry() for r in results]))

    async def _abort_early(
        self, batch: Batch, reply: AssistantMessage, *, always: bool = False
    ) -> None:
        """A reply cut by a cancel enters history with the calls already started, if any,
        and their results (the grace path); with none, as before (text only, if any)."""
        early = batch.early_calls
        if early:
            self._add_reply(reply.model_copy(update={"tool_calls": list(early)}))
            results = await batch.abort()
            self._append(ToolResultMessage(results=[r.entry() for r in results]))
        elif always:
            self._add_reply(reply)
            self._close_dangling(pipeline.interrupted_result)
        elif reply.text:
            self._add_reply(reply)

    def _add_reply(self, reply: AssistantMessage) -> None:
        self._append(reply)
        if reply.usage.input_tokens > 0:
            tokens = reply.usage.input_tokens + reply.usage.output_tokens
        else:
            system = self.context.system(self.options.system_prompt)
            tokens = self.context.tokens(self.history, system, self.tools.schemas())
        self._emit(
            MessageEndEvent(
                message=reply,
                context_tokens=tokens,
                context_window=self.context.window,
                context_window_source=self.context.source,
            )
        )

    async def _stream(
        self, request: ModelRequest, signal: CancelSignal, batch: Batch
    ) -> AssistantMessage:
        """One streamed model reply; a cancel ends the wait at once even if the model lingers.

        Calls complete in the stream go to `batch` at once (it may start them)."""
        parts: list[str] = []
        if signal.cancelled:
            raise _Aborted("")
        try:
            return await race(self._consume(request, signal, batch, parts), signal, settle=True)
        except CancelledError:
            raise _Aborted("".join(parts)) from None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the task itself is being cancelled, not by our signal
            raise _Aborted("".join(parts)) from None
        except Exception:
            if signal.cancelled:  # the stream failed because the cancel closed it
                raise _Aborted("".join(parts)) from None
            raise

    async def _consume(
        self, request: ModelRequest, signal: CancelSignal, batch: Batch, parts: list[str]
    ) -> AssistantMessage:
        """Read the model's stream: text is shown as it comes (and kept in `parts` for a cut
        reply), each complete call goes to the batch, the final message ends it."""
        async for item in self.model.stream(request, signal):
            if isinstance(item, TextDelta):
                parts.append(item.text)
                self._emit(TextDeltaEvent(text=item.text))
            elif isinstance(item, ThinkingDelta):
                self._emit(ThinkingDeltaEvent(text=item.text))
            elif isinstance(item, ToolCallReady):
                batch.feed(item.index, item.call)
            elif isinstance(item, ReplyDone):
                return item.message
            elif isinstance(item, Queued):
                self._emit(ModelQueueEvent(ahead=item.ahead))
        raise ModelError("the model stream ended without a final message")

    def _synthesize(self, calls: list[ToolCall], make: Callable[[ToolCall], CallResult]) -> None:
        """Close calls that will not run: tool_start/tool_end each, one toolResult message."""
        results = [make(c) for c in calls]
        for call, r in zip(calls, results, strict=True):
            decoded = pipeline.decode_arguments(call.arguments)
            self._emit(pipeline.start_event(call, self.tools, decoded, self.options.cwd))
            self._emit(r.end_event())
        self._append(ToolResultMessage(results=[r.entry() for r in results]))

    def _close_dangling(self, make: Callable[[ToolCall], CallResult]) -> None:
        """Give the calls of a last assistant message without results a synthesized result."""
        if not self.history:
            return
        last = self.history[-1]
        if isinstance(last, AssistantMessage) and last.tool_calls:
            self._synthesize(last.tool_calls, make)

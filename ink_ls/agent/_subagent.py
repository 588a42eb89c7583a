"""The `SubagentRunner` an Agent hands to tools (task): a child Agent on a fresh history.

The child shares the parent's model, gate, files, writer and process budget, has every tool
but `task` (no recursion, so nesting is one level deep), and follows the call's cancel signal.

Visibility: the runner bound to a task call (`SubagentRunners.for_call`) forwards the child's
tool events and text deltas to the parent's event sink, tagged with
`parent_tool_call_id=<task call id>`. The child's `message_end` and `run_end` are never
forwarded (they would read as the parent's own end): each `message_end` becomes a `usage`
event so the turn's token totals include the sub-agent's, and every child run's usage is
added to the parent run's (`count_child_usage`). Nothing is forwarded once the task
call is over for the parent (returned, or abandoned after the cancel grace period), so every
forwarded event comes before the task's own `tool_settled`/`tool_end`.

Tool call ids are model-generated, so two sub-agents (or a sub-agent and its parent) may both
produce `call_1`: everything the child
shows outside itself — forwarded events, gate requests (approval prompts), writer calls
(edit approvals, labels) — uses the namespaced id `<task call id>/<child call id>`
(`child_call_id`). The child's own history keeps the model's ids, and the parent's history
only ever holds the task call and its result. This module must not decide how a consumer
renders the events.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from ink_ls.agent.events import (
    AgentEvent,
    CompactionEvent,
    EventSink,
    HookRunEvent,
    InstructionsEvent,
    MessageEndEvent,
    ModelQueueEvent,
    RunEndEvent,
    StopReason,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    UsageEvent,
    WarningEvent,
)
from ink_ls.agent.gate import Gate, GateBlock, GateRequest, passes_unasked
from ink_ls.core.messages import Usage
from ink_ls.core.signal import CancelController, CancelSignal
from ink_ls.core.tool import FileWriter, SubagentRunner

MAX_TURNS_NOTE = "\n\n[The sub-agent stopped at its turn limit; this answer may be incomplete.]"
MAX_TOKENS_NOTE = (
    "\n\n[The sub-agent's answer was cut at the output-token limit; it may be incomplete.]"
)
ID_SEPARATOR = "/"


class _ChildResult(Protocol):
    stop_reason: StopReason
    text: str
    error: str | None
    usage: Usage


class ChildAgent(Protocol):
    """What a sub-agent must offer: settable sink, gate and writer, and one run."""

    on_event: EventSink
    gate: Gate
    writer: FileWriter

    async def run(self, prompt: str, signal: CancelSignal) -> _ChildResult: ...


class ParentAgent(Protocol):
    """What the runners need of the parent: its current sink and a way to make a child.

    A protocol, not the loop's `Agent`, so this module does not import the loop (no cycle).
    """

    @property
    def on_event(self) -> EventSink: ...

    def child(self) -> ChildAgent: ...

    def count_child_usage(self, usage: Usage) -> None: ...


class SubagentError(Exception):
    """The sub-agent ended without an answer (error or cancel)."""


def child_call_id(parent_call_id: str, call_id: str) -> str:
    """The id a sub-agent's call has outside the sub-agent: `<parent id>/<child id>`."""
    return f"{parent_call_id}{ID_SEPARATOR}{call_id}"


class _NamespacedGate:
    """The parent's gate, seeing the sub-agent's calls under their namespaced ids."""

    def __init__(self, gate: Gate, parent_call_id: str) -> None:
        self._gate = gate
        self._parent = parent_call_id

    def _ns(self, request: GateRequest) -> GateRequest:
        return replace(request, tool_call_id=child_call_id(self._parent, request.tool_call_id))

    async def __call__(self, request: GateRequest, signal: CancelSignal) -> GateBlock | None:
        return await self._gate(self._ns(request), signal)

    def would_pass(self, request: GateRequest) -> bool:
        return passes_unasked(self._gate, self._ns(request))


def _namespaced_gate(gate: Gate, parent_call_id: str) -> Gate:
    return _NamespacedGate(gate, parent_call_id)


class _NamespacedWriter:
    """A `FileWriter` passing the namespaced call id on (edit approvals and their labels)."""

    def __init__(self, inner: FileWriter, parent_call_id: str) -> None:
        self._inner = inner
        self._parent = parent_call_id

    async def write_text(
        self,
        path: Path,
        new_text: str,
        *,
        old_text: str | None,
        tool_name: str,
        tool_call_id: str,
        signal: CancelSignal,
    ) -> str | None:
        return await self._inner.write_text(
            path,
            new_text,
            old_text=old_text,
            tool_name=tool_name,
            tool_call_id=child_call_id(self._parent, tool_call_id),
            signal=signal,
        )


class SubagentRunners:
    """Makes sub-agent runners for one parent agent; the scheduler binds one to each task call
    with `for_call`, which forwards the child's events tagged with that call's id."""

    def __init__(self, parent: ParentAgent) -> None:
        self._parent = parent

    def for_call(self, tool_call_id: str) -> SubagentRunner:
        """A runner whose child's tool events and text deltas reach the parent, tagged."""

        async def run(prompt: str, signal: CancelSignal) -> str:
            return await self._run(prompt, signal, tool_call_id)

        return run

    async def _run(self, prompt: str, signal: CancelSignal, call_id: str) -> str:
        child = self._parent.child()
        forwarder = _Forwarder(self._parent, call_id, asyncio.current_task())
        child.on_event = forwarder
        child.gate = _namespaced_gate(child.gate, call_id)
        child.writer = _NamespacedWriter(child.writer, call_id)
        controller = CancelController(signal)
        try:
            result = await child.run(prompt, controller.signal)
        finally:
            controller.detach()
            forwarder.closed = True
        self._parent.count_child_usage(result.usage)
        if result.stop_reason == "aborted":
            raise SubagentError("the sub-agent was interrupted before it finished")
        if result.stop_reason == "error":
            raise SubagentError(f"the sub-agent failed: {result.error}")
        if result.stop_reason == "max_tokens":
            return result.text + MAX_TOKENS_NOTE
        if result.stop_reason == "max_iterations":
            return result.text + MAX_TURNS_NOTE
        return result.text


class _Forwarder:
    """The child's event sink: tags and passes events on while the task call is open.

    Once the task call is over for the parent — it returned, or the parent abandoned it at the
    grace deadline and asyncio-cancelled its task — nothing more is forwarded: a consumer must
    never see a sub-agent's call after its task's result (or after the parent's run ended).
    """

    def __init__(
        self, parent: ParentAgent, call_id: str, owner: asyncio.Task[object] | None
    ) -> None:
        self._parent = parent
        self._call_id = call_id
        self._owner = owner
        self.closed = False

    def __call__(self, event: AgentEvent) -> None:
        if self.closed or (self._owner is not None and self._owner.cancelling()):
            return
        if isinstance(
            event,
            RunEndEvent
            | UsageEvent
            | CompactionEvent
            | InstructionsEvent
            | WarningEvent
            | ModelQueueEvent,
        ):
            return  # a child has no task of its own; its context stays inside it
        tagged: AgentEvent
        if isinstance(event, MessageEndEvent):
            tagged = UsageEvent(usage=event.message.usage, parent_tool_call_id=self._call_id)
        elif isinstance(event, TextDeltaEvent | ThinkingDeltaEvent):
            tagged = event.model_copy(update={"parent_tool_call_id": self._call_id})
        elif isinstance(event, HookRunEvent):
            own = event.tool_call_id
            tagged = event.model_copy(
                update={
                    "tool_call_id": child_call_id(self._call_id, own) if own else None,
                    "parent_tool_call_id": self._call_id,
                }
            )
        else:
            tagged = event.model_copy(
                update={
                    "tool_call_id": child_call_id(self._call_id, event.tool_call_id),
                    "parent_tool_call_id": self._call_id,
                }
            )
        # Read at emit time: the parent's sink may be replaced between runs. A failing sink is
        # logged by the child's own guard and never breaks the child.
        self._parent.on_event(tagged)


def make_subagent_runner(parent: ParentAgent) -> SubagentRunners:
    """Runners that start a fresh child of `parent` per call (see `SubagentRunners`)."""
    return SubagentRunners(parent)


def bind_subagent(runners: SubagentRunners | None, tool_call_id: str) -> SubagentRunner | None:
    """The runner a call's `ToolContext` gets: bound to that call."""
    return runners.for_call(tool_call_id) if runners is not None else None

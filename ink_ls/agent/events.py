"""Events the agent emits while it runs: the four tool events, text, message and run ends.

The server turns them into `ink/session/update` and progress; `ink-ls run --json`
prints them. Consumers get them through a plain synchronous callback.

Events of a `task` call's sub-agent reach the parent's sink too (tool events, text deltas,
and a `usage` event per model reply in place of its `message_end`; never its `run_end`): they
carry `parent_tool_call_id` (the task call's id), and tool events a namespaced `tool_call_id`
`<task call id>/<child call id>`, so two sub-agents that both produce `call_1` never collide
in a consumer. Top-level events have
`parent_tool_call_id=None`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ink_ls.core.messages import AssistantMessage, ContentBlock, Usage
from ink_ls.core.tool import Display, ToolKind

StopReason = Literal["completed", "max_tokens", "max_iterations", "aborted", "error"]
"""How a run ended: the model answered (`completed`), its last answer was cut at the output-token
limit (`max_tokens`), the turn limit was reached, a cancel, or a failure."""
TurnOutcome = Literal["end_turn", "max_tokens", "max_turn_requests", "cancelled", "error"]
"""How a turn ended as every front end reports it (ACP's stop reasons, which `ink/*` adopts)."""
OUTCOMES: dict[StopReason, TurnOutcome] = {
    "completed": "end_turn",
    "max_tokens": "max_tokens",
    "max_iterations": "max_turn_requests",
    "aborted": "cancelled",
    "error": "error",
}
"""The agent's stop reasons and the front ends' outcomes, one to one."""


class ToolCallRef(BaseModel):
    """Which call something is about; shared with the wire's `tool_call`/`tool_call_update`."""

    model_config = ConfigDict(defer_build=True)

    tool_call_id: str
    parent_tool_call_id: str | None = None
    """Set on events forwarded from a `task` sub-agent: the id of that task call."""


class ToolCallLabel(BaseModel):
    """What a person reads for a call (`read README.md`) and its kind, chosen by its tool."""

    model_config = ConfigDict(defer_build=True)

    title: str = ""
    kind: ToolKind = "other"


class _Tagged(BaseModel):
    """Puts `type` first in an event built on a shared base (subclasses narrow it to their
    literal); the shared bases themselves carry no tag, so the wire can reuse them."""

    model_config = ConfigDict(defer_build=True)

    type: str


class ToolEvent(ToolCallRef, _Tagged):
    """Base of the five tool events: the call and its tool."""

    tool_name: str


class ToolStartEvent(ToolCallLabel, ToolEvent):
    """A call is registered (it may still wait for a slot or a barrier)."""

    type: Literal["tool_start"] = "tool_start"
    arguments: dict[str, Any] | None = None
    """The parsed arguments when they are a JSON object, else None."""


class ToolRunningEvent(ToolEvent):
    """A call really starts executing (after validation, the gate and a free slot)."""

    type: Literal["tool_running"] = "tool_running"


class ToolProgressEvent(ToolEvent):
    """A running call says how far it got (e.g. an MCP server's progress notification)."""

    type: Literal["tool_progress"] = "tool_progress"
    message: str
    """One short line, e.g. `3/10 · indexing`."""


class ToolOutputEvent(ToolEvent):
    """A running command's output as it comes (bash), before its result."""

    type: Literal["tool_output"] = "tool_output"
    text: str
    """The new output (stdout and stderr interleaved as read), decoded as UTF-8."""


class ToolSettledEvent(ToolEvent):
    """A call finished; emitted at once, in completion order (for the UI)."""

    type: Literal["tool_settled"] = "tool_settled"
    is_error: bool
    duration_ms: float
    """Execution time only, queue time excluded."""
    cancelled: bool = False
    """The run's cancel ended the call (it was stopped, abandoned, or never ran); `is_error`
    is true as well."""


class ToolEndEvent(ToolEvent):
    """A call's result, delivered in call order."""

    type: Literal["tool_end"] = "tool_end"
    content: list[ContentBlock]
    is_error: bool
    display: Display | None = None
    duration_ms: float | None = None
    cancelled: bool = False
    """As in `ToolSettledEvent`: the run's cancel ended the call."""


class TextDeltaEvent(BaseModel):
    model_config = ConfigDict(defer_build=True)
    type: Literal["text_delta"] = "text_delta"
    text: str
    parent_tool_call_id: str | None = None
    """Set on events forwarded from a `task` sub-agent: the id of that task call."""


class ThinkingDeltaEvent(BaseModel):
    """A piece of the model's visible reasoning (DeepSeek `reasoning_content`, vLLM/OpenRouter
    `reasoning`, Anthropic thinking): shown to the user, never part of the answer."""

    model_config = ConfigDict(defer_build=True)
    type: Literal["thinking_delta"] = "thinking_delta"
    text: str
    parent_tool_call_id: str | None = None
    """Set on events forwarded from a `task` sub-agent: the id of that task call."""


class WarningEvent(BaseModel):
    """Something the user must know that does not stop the run, with what to do about it
    (e.g. the server runs the model with a window smaller than the prompt)."""

    model_config = ConfigDict(defer_build=True)

    type: Literal["warning"] = "warning"
    message: str


class ContextFill(BaseModel):
    """How full the context window is; shared with the wire's `usage_update`."""

    model_config = ConfigDict(defer_build=True)

    context_tokens: int | None = None
    """Tokens the conversation holds after this reply (reported input + output), when known."""
    context_window: int | None = None
    """The model's context window, when the agent knows it."""
    context_window_source: str | None = None
    """Where the window figure came from (`Ollama runtime`, `configured`, `default`, …)."""


class MessageEndEvent(ContextFill, _Tagged):
    """An assistant message is complete and entered history."""

    type: Literal["message_end"] = "message_end"
    message: AssistantMessage


class CompactionInfo(BaseModel):
    """One phase of a compaction; shared with the wire's `compaction` update."""

    model_config = ConfigDict(defer_build=True)

    phase: Literal["start", "end", "failed"]
    reason: Literal["threshold", "overflow", "manual"]
    tokens_before: int
    tokens_after: int | None = None
    context_window: int | None = None
    summarized_messages: int | None = None
    kept_messages: int | None = None
    duration_ms: float | None = None
    error: str | None = None


class CompactionEvent(CompactionInfo, _Tagged):
    """The conversation is being (phase `start`) or was (`end`) compacted, or it failed."""

    type: Literal["compaction"] = "compaction"
    usage: Usage | None = None
    """What the summary request cost (phase `end`)."""


class InstructionsInfo(BaseModel):
    """Project instruction files that joined the system prompt; shared with the wire."""

    model_config = ConfigDict(defer_build=True)

    paths: list[str]
    """The files loaded just now, absolute, farther directories first."""
    truncated: bool = False
    """True when the 32 KiB cap cut what these files added."""


class HookRunEvent(BaseModel):
    """A hook of the user's settings started (`phase` start) or ended, with its outcome."""

    model_config = ConfigDict(defer_build=True)

    type: Literal["hook"] = "hook"
    phase: Literal["start", "end"]
    event: str
    """The hook event: PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart, …"""
    command: str
    tool_call_id: str | None = None
    """The call a tool hook runs for."""
    parent_tool_call_id: str | None = None
    """Set on events forwarded from a `task` sub-agent: the id of that task call."""
    outcome: Literal["ok", "blocked", "failed", "timeout", "cancelled"] | None = None
    message: str = ""
    """How it ended, one line (phase end)."""
    duration_ms: float | None = None


class InstructionsEvent(InstructionsInfo, _Tagged):
    """Project instruction files (AGENTS.md, CLAUDE.md) entered the system prompt."""

    type: Literal["instructions_loaded"] = "instructions_loaded"


class ModelQueueEvent(BaseModel):
    """The turn's model request waits for a slot of the endpoint's request limit, `ahead`
    requests before it; `ahead` None: it left the queue and goes out now."""

    model_config = ConfigDict(defer_build=True)

    type: Literal["model_queue"] = "model_queue"
    ahead: int | None = None


class UsageEvent(BaseModel):
    """The tokens of one model reply of a `task` call's sub-agent (forwarded in place of its
    `message_end`, which would read as the parent's own message), so totals count them."""

    model_config = ConfigDict(defer_build=True)

    type: Literal["usage"] = "usage"
    usage: Usage
    parent_tool_call_id: str
    """The id of the task call whose sub-agent made the request."""


class RunEndEvent(BaseModel):
    model_config = ConfigDict(defer_build=True)
    type: Literal["run_end"] = "run_end"
    stop_reason: StopReason
    usage: Usage
    """Summed over the run's model replies, its sub-agents' included."""
    text: str = ""
    """The final assistant text of the run."""
    error: str | None = None


AgentEvent = Annotated[
    ToolStartEvent
    | ToolRunningEvent
    | ToolProgressEvent
    | ToolOutputEvent
    | ToolSettledEvent
    | ToolEndEvent
    | TextDeltaEvent
    | ThinkingDeltaEvent
    | MessageEndEvent
    | CompactionEvent
    | InstructionsEvent
    | HookRunEvent
    | UsageEvent
    | WarningEvent
    | ModelQueueEvent
    | RunEndEvent,
    Field(discriminator="type"),
]

EventSink = Callable[[AgentEvent], None]


def ignore_events(event: AgentEvent) -> None:
    """An EventSink that drops everything."""

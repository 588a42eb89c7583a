"""Small fakes for the agent-core tests: a scripted model and tools driven by events.

Tools finish when the test releases them (no sleeps), record the order things happen in,
and count how many run at once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from ink_ls.agent.events import AgentEvent
from ink_ls.core.messages import AssistantMessage, ToolCall, Usage
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import Tool, ToolContext, ToolParams, ToolResult
from ink_ls.model.base import ModelError, ModelRequest, ReplyDone, StreamItem, TextDelta


class KeyParams(ToolParams):
    key: str = Field(default="", description="which call this is")


@dataclass
class Board:
    """Shared state of the controlled tools of one test."""

    log: list[str] = field(default_factory=list)
    gates: dict[str, asyncio.Event] = field(default_factory=dict)
    started: dict[str, asyncio.Event] = field(default_factory=dict)
    running: int = 0
    max_running: int = 0
    auto: bool = False
    """When True, calls finish at once instead of waiting for `release`."""
    ignore_cancel: set[str] = field(default_factory=set)
    late: dict[str, asyncio.Event] = field(default_factory=dict)

    def gate(self, key: str) -> asyncio.Event:
        return self.gates.setdefault(key, asyncio.Event())

    def start_event(self, key: str) -> asyncio.Event:
        return self.started.setdefault(key, asyncio.Event())

    def release(self, *keys: str) -> None:
        for k in keys:
            self.gate(k).set()

    async def wait_started(self, *keys: str, timeout: float = 5.0) -> None:
        for k in keys:
            await asyncio.wait_for(self.start_event(k).wait(), timeout)


class ControlledTool(Tool[KeyParams]):
    """Waits until the test releases its key (or its signal fires, unless told to ignore it)."""

    name = "controlled"
    description = "a test tool"
    params_model = KeyParams

    def __init__(self, board: Board) -> None:
        self.board = board

    async def execute(
        self, args: KeyParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        b, k = self.board, args.key
        b.log.append(f"start:{k}")
        b.running += 1
        b.max_running = max(b.max_running, b.running)
        b.start_event(k).set()
        try:
            if not b.auto:
                if k in b.ignore_cancel:
                    try:
                        await b.gate(k).wait()
                    except asyncio.CancelledError:
                        b.log.append(f"asyncio-cancelled:{k}")
                        if k not in b.late:
                            raise
                        await b.late[k].wait()  # swallow the cancel; deliver a late result
                        b.log.append(f"late:{k}")
                        return ToolResult(output=f"late {k}")
                else:
                    waiter = asyncio.ensure_future(b.gate(k).wait())
                    stop = asyncio.ensure_future(signal.wait())
                    await asyncio.wait((waiter, stop), return_when=asyncio.FIRST_COMPLETED)
                    waiter.cancel()
                    stop.cancel()
                    if signal.cancelled and not b.gate(k).is_set():
                        b.log.append(f"stopped:{k}")
                        return ToolResult(output=f"stopped {k}", is_error=True)
            b.log.append(f"end:{k}")
            return ToolResult(output=f"{self.name} {k}")
        finally:
            b.running -= 1


def tool_class(name: str, *, safe: bool) -> type[ControlledTool]:
    """A ControlledTool subclass with its own name and concurrency flag."""
    return type(f"{name.title()}Tool", (ControlledTool,), {"name": name, "concurrency_safe": safe})


ReadTool = tool_class("read", safe=True)
GrepTool = tool_class("grep", safe=True)
BashTool = tool_class("bash", safe=False)


class DefaultTool(ControlledTool):
    """Leaves `concurrency_safe` at its default."""

    name = "plain"


def call(name: str, key: str = "", *, id: str | None = None, raw: str | None = None) -> ToolCall:
    args = raw if raw is not None else json.dumps({"key": key})
    return ToolCall(id=id or f"{name}-{key}", name=name, arguments=args)


Step = AssistantMessage | Exception | Callable[[ModelRequest, CancelSignal], Any]


@dataclass
class ScriptedModel:
    """Replays scripted replies; text is streamed in pieces before the final message.

    A step may be an AssistantMessage, an exception to raise, or `HANG` (stream one delta,
    then wait, ignoring the signal, until the test is over).
    """

    steps: list[Step]
    requests: list[ModelRequest] = field(default_factory=list)
    request_seen: asyncio.Event = field(default_factory=asyncio.Event)

    async def stream(
        self, request: ModelRequest, signal: CancelSignal
    ) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        self.request_seen.set()
        if not self.steps:
            raise ModelError("script exhausted")
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        if callable(step) and not isinstance(step, AssistantMessage):
            step = await step(request, signal)
            assert isinstance(step, AssistantMessage)
        text = step.text
        for i in range(0, len(text), 3):
            yield TextDelta(text[i : i + 3])
            await asyncio.sleep(0)
        yield ReplyDone(step)


async def hang(request: ModelRequest, signal: CancelSignal) -> AssistantMessage:
    """A model step that never answers and ignores the signal."""
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


def reply(
    text: str = "", *calls: ToolCall, stop: str | None = None, tokens: int = 1
) -> AssistantMessage:
    return AssistantMessage(
        text=text,
        tool_calls=list(calls),
        stop_reason=stop or ("tool_use" if calls else "stop"),  # type: ignore[arg-type]
        usage=Usage(input_tokens=tokens, output_tokens=tokens),
    )


@dataclass
class Recorder:
    """An EventSink keeping every event, with compact views for assertions."""

    events: list[AgentEvent] = field(default_factory=list)
    hooks: list[Callable[[AgentEvent], None]] = field(default_factory=list)

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)
        for hook in self.hooks:
            hook(event)

    def of(self, kind: str) -> list[str]:
        """The tool_call_ids of events of one type, in emission order."""
        return [getattr(e, "tool_call_id", "") for e in self.events if e.type == kind]

    def trace(self) -> list[str]:
        return [
            f"{e.type}:{getattr(e, 'tool_call_id', '')}"
            for e in self.events
            if e.type.startswith("tool_")
        ]


CWD = Path("/tmp")

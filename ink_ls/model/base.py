"""The model interface the agent loop drives; the OpenAI client and test scripts implement it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ink_ls.core.messages import AssistantMessage, Message, ToolCall
from ink_ls.core.signal import CancelSignal
from ink_ls.model.wire import WireCache


class ModelError(Exception):
    """Root of model-access errors. Messages never contain the API key."""


@dataclass(frozen=True)
class ContextWindow:
    """The model's context window and where the figure came from."""

    tokens: int
    source: str
    """Where it came from, for people: `configured`, `Ollama runtime`, `llama.cpp n_ctx`, …"""
    runtime: bool = False
    """The server really runs this window: it cuts (or refuses) a longer prompt."""

    def describe(self) -> str:
        """`window 4,096 tokens (Ollama runtime)`."""
        return f"window {self.tokens:,} tokens ({self.source})"


@dataclass
class ModelRequest:
    system: str
    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    """`{name, description, parameters}` per tool, as `ToolRegistry.schemas()` returns."""
    wire: WireCache | None = field(default=None, compare=False)
    """The conversation's encoded messages, reused across its requests (None: build the
    body's messages from scratch)."""


@dataclass
class TextDelta:
    """A piece of streamed assistant text."""

    text: str


@dataclass
class ThinkingDelta:
    """A piece of the model's visible reasoning (shown to the user, never part of the answer)."""

    text: str


@dataclass
class ToolCallReady:
    """A tool call whose arguments are complete in the stream (the next call began, or the
    reply finished without hitting the token limit), before the reply is done.

    The call is exactly the one the final message will carry (same id, name and arguments),
    so a consumer may start it early. Sent only for calls whose arguments are a complete JSON
    object, never for a reply cut by the token limit.
    """

    index: int
    """The call's position in the reply; positions may have gaps (calls not handed out early)."""
    call: ToolCall


@dataclass
class ReplyDone:
    """The whole assistant message; always the last item of a stream that did not raise."""

    message: AssistantMessage


@dataclass
class Queued:
    """The request waits for a free slot of the endpoint's limit (`max_concurrent_requests`):
    `ahead` requests are before it; `None` once it leaves the queue and goes out."""

    ahead: int | None


StreamItem = TextDelta | ThinkingDelta | ToolCallReady | ReplyDone | Queued


class Model(Protocol):
    """Streams one assistant reply (`ToolCallReady` items are optional: a model that never
    sends them gets its calls run after the reply, as before). Raises `ModelError` on failure;
    stops promptly on cancel."""

    def stream(self, request: ModelRequest, signal: CancelSignal) -> AsyncIterator[StreamItem]: ...

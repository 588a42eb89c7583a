"""The model interface the agent loop drives; the OpenAI client and test scripts implement it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ink_ls.core.messages import AssistantMessage, Message
from ink_ls.core.signal import CancelSignal


class ModelError(Exception):
    """Root of model-access errors. Messages never contain the API key."""


@dataclass
class ModelRequest:
    system: str
    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    """`{name, description, parameters}` per tool, as `ToolRegistry.schemas()` returns."""


@dataclass
class TextDelta:
    """A piece of streamed assistant text."""

    text: str


@dataclass
class ReplyDone:
    """The whole assistant message; always the last item of a stream that did not raise."""

    message: AssistantMessage


StreamItem = TextDelta | ReplyDone


class Model(Protocol):
    """Streams one assistant reply. Raises `ModelError` on failure; stops promptly on cancel."""

    def stream(self, request: ModelRequest, signal: CancelSignal) -> AsyncIterator[StreamItem]: ...

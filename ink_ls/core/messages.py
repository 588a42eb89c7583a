"""History messages and content blocks, the shapes the loop, the model client and sessions share.

Pydantic models, serialisable to JSONL as they are. Nothing here knows about a wire protocol.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue


class TextBlock(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True)
    type: Literal["text"] = "text"
    text: str


class ImageBlock(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True, populate_by_name=True)
    type: Literal["image"] = "image"
    data: str = Field(description="base64-encoded image bytes")
    mime_type: str = Field(alias="mimeType")


ContentBlock = Annotated[TextBlock | ImageBlock, Field(discriminator="type")]

ProviderExtra = dict[str, dict[str, JsonValue]]
"""Fields a provider sent that we keep but do not interpret, keyed by the provider's dialect
(`"openai-chat"`, `"openai-responses"`, `"anthropic"`): each provider reads and writes only its
own key and sends them back exactly as received, so a session that switches provider never
sends one provider's fields to another."""


class ToolCall(BaseModel):
    """One tool call as the model sent it. `arguments` is the raw JSON text (may be invalid)."""

    model_config = ConfigDict(defer_build=True)

    id: str
    name: str
    arguments: str
    extra: ProviderExtra = Field(default_factory=dict)
    """Provider fields of the call (e.g. Gemini's `extra_content`), sent back as received."""


class Usage(BaseModel):
    model_config = ConfigDict(defer_build=True)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0

    def add(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
        )


AssistantStop = Literal["stop", "tool_use", "max_tokens", "error", "aborted"]


class UserMessage(BaseModel):
    model_config = ConfigDict(defer_build=True)
    role: Literal["user"] = "user"
    content: list[ContentBlock]


class AssistantMessage(BaseModel):
    model_config = ConfigDict(defer_build=True)
    role: Literal["assistant"] = "assistant"
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    stop_reason: AssistantStop = "stop"
    usage: Usage = Field(default_factory=Usage)
    error: str | None = None
    thinking: str | None = None
    """Visible reasoning text, shown to the user; sent back only where `extra` says so."""
    extra: ProviderExtra = Field(default_factory=dict)
    """Provider fields of the message (reasoning text and signatures, provider ids)."""


class ToolResultEntry(BaseModel):
    """One call's result as it enters history: no display, no timings."""

    model_config = ConfigDict(defer_build=True)

    tool_call_id: str
    tool_name: str
    content: list[ContentBlock]
    is_error: bool = False


class ToolResultMessage(BaseModel):
    """All results of one batch, in call order, appended after the whole batch."""

    model_config = ConfigDict(defer_build=True)

    role: Literal["toolResult"] = "toolResult"
    results: list[ToolResultEntry]


Message = Annotated[UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]


def text_of(blocks: list[ContentBlock]) -> str:
    """The concatenated text of the text blocks (images skipped)."""
    return "".join(b.text for b in blocks if isinstance(b, TextBlock))


def user_text(text: str) -> UserMessage:
    return UserMessage(content=[TextBlock(text=text)])

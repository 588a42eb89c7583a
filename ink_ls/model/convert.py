"""Our history → the Chat Completions request body (messages, tools, options).

Pure functions, no I/O. Rules the API imposes: tool results are `role: tool` messages that
follow the assistant message right away and carry text only, so images from a batch of
results go in one user message after them; models without vision get a text placeholder
instead of an image (history itself keeps the image). Fields the provider sent that we keep
(`extra["openai-chat"]`) go back on their assistant message and tool calls unchanged.
"""

from __future__ import annotations

from typing import Any, assert_never

from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultMessage,
    UserMessage,
)
from ink_ls.model.base import ModelRequest
from ink_ls.model.extras import DIALECT
from ink_ls.model.wire import RawJSON, encoded_items, encoded_tools

JSONObject = dict[str, Any]


def image_placeholder(block: ImageBlock) -> str:
    """What a model without vision reads in place of an image."""
    return f"[image ({block.mime_type}) omitted: this model cannot see images]"


def _image_part(block: ImageBlock) -> JSONObject:
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"},
    }


def _user_content(blocks: list[ContentBlock], *, vision: bool) -> str | list[JSONObject]:
    """A plain string when the message is all text (every server accepts that), else parts."""
    if not vision or not any(isinstance(b, ImageBlock) for b in blocks):
        return "\n".join(
            b.text if isinstance(b, TextBlock) else image_placeholder(b) for b in blocks
        )
    parts: list[JSONObject] = []
    for b in blocks:
        if isinstance(b, TextBlock):
            parts.append({"type": "text", "text": b.text})
        else:
            parts.append(_image_part(b))
    return parts


def _assistant(message: AssistantMessage) -> JSONObject | None:
    if not message.text and not message.tool_calls:
        return None  # an empty (aborted / failed) reply: several servers refuse empty content
    # what the provider sent and we did not interpret goes back as received (DeepSeek refuses
    # a tool-calling turn without its `reasoning_content`, Gemini one without its signature)
    out: JSONObject = dict(message.extra.get(DIALECT, {}))
    out.update(role="assistant", content=message.text or None)
    if message.tool_calls:
        out["tool_calls"] = [
            {
                **call.extra.get(DIALECT, {}),
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in message.tool_calls
        ]
    return out


def _tool_results(message: ToolResultMessage, *, vision: bool) -> list[JSONObject]:
    out: list[JSONObject] = []
    images: list[JSONObject] = []
    for result in message.results:
        texts: list[str] = []
        for b in result.content:
            if isinstance(b, TextBlock):
                texts.append(b.text)
            elif vision:
                texts.append(f"[image ({b.mime_type}) attached in the next user message]")
                if not images:
                    images.append({"type": "text", "text": "Images returned by tool calls:"})
                label = f"{result.tool_name} ({result.tool_call_id}):"
                images.append({"type": "text", "text": label})
                images.append(_image_part(b))
            else:
                texts.append(image_placeholder(b))
        out.append(
            {"role": "tool", "tool_call_id": result.tool_call_id, "content": "\n".join(texts)}
        )
    if images:
        out.append({"role": "user", "content": images})
    return out


def _items(message: Message, *, vision: bool) -> list[JSONObject]:
    """One history message as `messages` items (none for an empty reply)."""
    if isinstance(message, UserMessage):
        return [{"role": "user", "content": _user_content(message.content, vision=vision)}]
    if isinstance(message, AssistantMessage):
        converted = _assistant(message)
        return [converted] if converted is not None else []
    if isinstance(message, ToolResultMessage):
        return _tool_results(message, vision=vision)
    assert_never(message)


def to_openai_messages(system: str, history: list[Message], *, vision: bool) -> list[JSONObject]:
    """The `messages` array: the system prompt, then history in order."""
    out: list[JSONObject] = [{"role": "system", "content": system}] if system else []
    for message in history:
        out.extend(_items(message, vision=vision))
    return out


def _messages(request: ModelRequest, *, vision: bool) -> list[JSONObject] | RawJSON:
    """`messages`, from the conversation's wire cache when the request has one."""
    head = [{"role": "system", "content": request.system}] if request.system else []
    return encoded_items(
        request.wire,
        f"{DIALECT}:vision={vision}",
        request.messages,
        lambda message: _items(message, vision=vision),
        head,
    )


def openai_tool(s: JSONObject) -> JSONObject:
    """`{name, description, parameters}` → `{type: function, function: {…}}`."""
    return {
        "type": "function",
        "function": {
            "name": s["name"],
            "description": s["description"],
            "parameters": s["parameters"],
        },
    }


def request_body(request: ModelRequest, settings: ModelSettings) -> JSONObject:
    """The whole POST /chat/completions body for one streamed reply."""
    body: JSONObject = {
        "model": settings.model,
        "messages": _messages(request, vision=settings.vision),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = encoded_tools(request.wire, DIALECT, request.tools, openai_tool)
    if settings.max_tokens is not None:
        body["max_tokens"] = settings.max_tokens
    return body

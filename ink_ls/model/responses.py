"""OpenAI's Responses API: `{base}/responses`, stateless (`store: false`) with reasoning passed
back encrypted. The request side lives here, the stream side in `responses_stream`.

A reply's output items (reasoning with its `encrypted_content`, the message, the function
calls) are kept in the message's `extra["openai-responses"]["items"]` exactly as
`response.output_item.done` gave them, and go back in that order as input items: each
reasoning item right before the function call it led to, as the API requires.
"""

from __future__ import annotations

import re
from typing import Any, assert_never

from ink_ls.core.config import ModelSettings, Provider
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
from ink_ls.model.convert import image_placeholder
from ink_ls.model.dialect import bearer_headers, whole_object
from ink_ls.model.responses_stream import ResponsesParser, reply_from_response
from ink_ls.model.sse import SSEDecoder
from ink_ls.model.wire import encoded_items, encoded_tools

NAME: Provider = "openai-responses"

INCLUDE = ["reasoning.encrypted_content"]
_REASONING_MODELS = re.compile(r"^(o\d|gpt-5(?!-chat)|codex)", re.IGNORECASE)
"""Models that reason: asked for a summary of it (others refuse the `reasoning` option)."""

JSONObject = dict[str, Any]


def _tool(s: JSONObject) -> JSONObject:
    """A tool entry as Responses takes it (flat, not strict)."""
    return {
        "type": "function",
        "name": s["name"],
        "description": s["description"],
        "parameters": s["parameters"],
        "strict": False,
    }


def _image(block: ImageBlock) -> JSONObject:
    return {"type": "input_image", "image_url": f"data:{block.mime_type};base64,{block.data}"}


def _user(blocks: list[ContentBlock], *, vision: bool) -> JSONObject:
    parts: list[JSONObject] = []
    for b in blocks:
        if isinstance(b, TextBlock):
            parts.append({"type": "input_text", "text": b.text})
        elif vision:
            parts.append(_image(b))
        else:
            parts.append({"type": "input_text", "text": image_placeholder(b)})
    return {"role": "user", "content": parts}


def _call_item(call_id: str, name: str, arguments: str, own: dict[str, Any]) -> JSONObject:
    item: JSONObject = {"type": "function_call", "call_id": call_id, "name": name}
    item["arguments"] = arguments
    if isinstance(own.get("id"), str):
        item["id"] = own["id"]
    return item


def _assistant(message: AssistantMessage) -> list[JSONObject]:
    own = message.extra.get(NAME, {})
    items = own.get("items")
    out: list[JSONObject] = []
    sent: set[str] = set()
    if isinstance(items, list):  # as received: reasoning, message and calls in their order
        for item in items:
            if isinstance(item, dict):
                out.append(item)
                call_id = item.get("call_id")
                if item.get("type") == "function_call" and isinstance(call_id, str):
                    sent.add(call_id)
    elif message.text:  # another provider's reply, or one cut by a cancel
        out.append({"role": "assistant", "content": message.text})
    for call in message.tool_calls:
        if call.id not in sent:
            out.append(_call_item(call.id, call.name, call.arguments, call.extra.get(NAME, {})))
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
                images.append(
                    {"type": "input_text", "text": f"{result.tool_name} ({result.tool_call_id}):"}
                )
                images.append(_image(b))
            else:
                texts.append(image_placeholder(b))
        out.append(
            {
                "type": "function_call_output",
                "call_id": result.tool_call_id,
                "output": "\n".join(texts),
            }
        )
    if images:
        out.append({"role": "user", "content": images})
    return out


def _items(message: Message, *, vision: bool) -> list[JSONObject]:
    """One history message as input items."""
    if isinstance(message, UserMessage):
        return [_user(message.content, vision=vision)]
    if isinstance(message, AssistantMessage):
        return _assistant(message)
    if isinstance(message, ToolResultMessage):
        return _tool_results(message, vision=vision)
    assert_never(message)


def to_input(history: list[Message], *, vision: bool) -> list[JSONObject]:
    """History as the `input` item list."""
    return [item for message in history for item in _items(message, vision=vision)]


def request_body(request: ModelRequest, settings: ModelSettings) -> JSONObject:
    """The whole POST /responses body for one streamed reply."""
    body: JSONObject = {
        "model": settings.model,
        "input": encoded_items(
            request.wire,
            f"{NAME}:vision={settings.vision}",
            request.messages,
            lambda message: _items(message, vision=settings.vision),
        ),
        "stream": True,
        "store": False,
        "include": list(INCLUDE),
    }
    if request.system:
        body["instructions"] = request.system
    if request.tools:
        body["tools"] = encoded_tools(request.wire, NAME, request.tools, _tool)
    if settings.max_tokens is not None:
        body["max_output_tokens"] = settings.max_tokens
    if _REASONING_MODELS.match(settings.model):
        body["reasoning"] = {"summary": "auto"}
    return body


class ResponsesDialect:
    """The Responses API (api.openai.com and servers that speak it)."""

    @property
    def name(self) -> Provider:
        return NAME

    def url(self, base_url: str) -> str:
        return base_url + "/responses"

    def headers(self, key: str | None) -> dict[str, str]:
        return bearer_headers(key)

    def body(self, request: ModelRequest, settings: ModelSettings) -> dict[str, object]:
        return request_body(request, settings)

    def decoder(self) -> SSEDecoder:
        return SSEDecoder()

    def parser(self, secret: str | None) -> ResponsesParser:
        return ResponsesParser(secret)

    def whole_reply(self, raw: bytes, secret: str | None) -> AssistantMessage:
        """A non-streamed response object."""
        data = whole_object(raw, secret, field="output", what="a response")
        return reply_from_response(data, secret)

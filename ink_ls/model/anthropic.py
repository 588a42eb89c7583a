"""Anthropic's Messages API: `{base}/messages`, `x-api-key` with `anthropic-version`, extended
thinking, prompt caching. The request side lives here, the stream side in `anthropic_stream`.

Thinking blocks of a reply (signatures, redacted ones too) are kept in the message's
`extra["anthropic"]["thinking"]` and sent back first in that assistant message, exactly as
received. Two cache breakpoints: the system prompt (which caches the tools before it) and the
last message, so a long session pays cached input for everything but the newest turn.
"""

from __future__ import annotations

import json
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
from ink_ls.model.anthropic_stream import AnthropicParser, reply_from_message
from ink_ls.model.base import ModelRequest
from ink_ls.model.convert import image_placeholder
from ink_ls.model.dialect import whole_object
from ink_ls.model.sse import SSEDecoder
from ink_ls.model.wire import RawJSON, WireCache, dumps, encoded_tools

NAME: Provider = "anthropic"


def _tool(s: dict[str, Any]) -> dict[str, Any]:
    return {"name": s["name"], "description": s["description"], "input_schema": s["parameters"]}


API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 16_384
"""The API requires an output limit; used when `max_tokens` is not set."""
MIN_THINKING_BUDGET = 1_024
"""The API's smallest thinking budget; thinking is on only when the output limit leaves at
least as much for the answer."""
CACHE = {"type": "ephemeral"}

JSONObject = dict[str, Any]


def thinking_budget(max_tokens: int) -> int | None:
    """Tokens the model may think for: half the output limit, at least the API's minimum;
    None when the limit is too small to think and still answer."""
    if max_tokens < 2 * MIN_THINKING_BUDGET:
        return None
    return max(MIN_THINKING_BUDGET, max_tokens // 2)


def _image(block: ImageBlock) -> JSONObject:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": block.mime_type, "data": block.data},
    }


def _blocks(content: list[ContentBlock], *, vision: bool) -> list[JSONObject]:
    out: list[JSONObject] = []
    for b in content:
        if isinstance(b, TextBlock):
            if b.text:  # the API refuses empty text blocks
                out.append({"type": "text", "text": b.text})
        elif vision:
            out.append(_image(b))
        else:
            out.append({"type": "text", "text": image_placeholder(b)})
    return out


def _input(arguments: str) -> JSONObject:
    """A call's input object; arguments that are not a JSON object go back as `{}` (the
    tool's error result already told the model what was wrong)."""
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _assistant(message: AssistantMessage) -> JSONObject | None:
    own = message.extra.get(NAME, {})
    thinking = own.get("thinking")
    content: list[JSONObject] = []
    if isinstance(thinking, list):  # first, as received: the API checks them byte for byte
        content.extend(b for b in thinking if isinstance(b, dict))
    if message.text:
        content.append({"type": "text", "text": message.text})
    for call in message.tool_calls:
        content.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": _input(call.arguments)}
        )
    if not message.text and not message.tool_calls:
        return None  # an aborted or failed reply: nothing the model said
    return {"role": "assistant", "content": content}


def _tool_results(message: ToolResultMessage, *, vision: bool) -> list[JSONObject]:
    out: list[JSONObject] = []
    for result in message.results:
        entry: JSONObject = {"type": "tool_result", "tool_use_id": result.tool_call_id}
        blocks = _blocks(result.content, vision=vision)
        if blocks:
            entry["content"] = blocks
        if result.is_error:
            entry["is_error"] = True
        out.append(entry)
    return out


def _unit(message: Message, *, vision: bool) -> tuple[str, list[JSONObject]] | None:
    """One history message as a role and its content blocks (None: it sends nothing)."""
    if isinstance(message, UserMessage):
        blocks = _blocks(message.content, vision=vision)
        return ("user", blocks) if blocks else None
    if isinstance(message, AssistantMessage):
        converted = _assistant(message)
        return ("assistant", converted["content"]) if converted is not None else None
    if isinstance(message, ToolResultMessage):
        results = _tool_results(message, vision=vision)
        return ("user", results) if results else None
    assert_never(message)


def to_anthropic_messages(history: list[Message], *, vision: bool) -> list[JSONObject]:
    """History as `messages`; consecutive user turns (results, then a prompt) become one."""
    out: list[JSONObject] = []
    for message in history:
        unit = _unit(message, vision=vision)
        if unit is None:
            continue
        role, blocks = unit
        if role == "user" and out and out[-1]["role"] == "user":
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": list(blocks)})
    return out


def _marked(block: JSONObject) -> JSONObject:
    return {**block, "cache_control": dict(CACHE)}


def _cacheable(block: JSONObject) -> bool:
    return block.get("type") not in ("thinking", "redacted_thinking")


def _mark_last_block(messages: list[JSONObject]) -> None:
    """The conversation breakpoint: the last cacheable block of the last message (thinking
    blocks cannot carry one); a copy, so history's blocks stay as received."""
    if not messages:
        return
    content = messages[-1]["content"]
    for i in range(len(content) - 1, -1, -1):
        if _cacheable(content[i]):
            content[i] = _marked(content[i])
            return


_Encoded = tuple[str, list[tuple[JSONObject, str]]] | None
"""A message's role and each block with its JSON text, as the wire cache keeps them."""


def _encoded_messages(request: ModelRequest, wire: WireCache, *, vision: bool) -> RawJSON:
    """`messages` from the conversation's wire cache: the same groups and breakpoint as
    `to_anthropic_messages` and `_mark_last_block`, each block encoded once."""

    def encode(message: Message) -> _Encoded:
        unit = _unit(message, vision=vision)
        return None if unit is None else (unit[0], [(b, dumps(b)) for b in unit[1]])

    groups: list[tuple[str, list[tuple[JSONObject, str]]]] = []
    for unit in wire.each(f"{NAME}:vision={vision}", request.messages, encode):
        if unit is None:
            continue
        if unit[0] == "user" and groups and groups[-1][0] == "user":
            groups[-1][1].extend(unit[1])
        else:
            groups.append((unit[0], list(unit[1])))
    if groups:
        blocks = groups[-1][1]
        for i in range(len(blocks) - 1, -1, -1):
            if _cacheable(blocks[i][0]):
                blocks[i] = (blocks[i][0], dumps(_marked(blocks[i][0])))
                break
    return RawJSON(
        tuple(
            f'{{"role":{dumps(role)},"content":[{",".join(text for _, text in blocks)}]}}'
            for role, blocks in groups
        )
    )


def request_body(request: ModelRequest, settings: ModelSettings) -> JSONObject:
    """The whole POST /messages body for one streamed reply."""
    max_tokens = settings.max_tokens or DEFAULT_MAX_TOKENS
    messages: list[JSONObject] | RawJSON
    if request.wire is not None:
        messages = _encoded_messages(request, request.wire, vision=settings.vision)
    else:
        messages = to_anthropic_messages(request.messages, vision=settings.vision)
        _mark_last_block(messages)
    body: JSONObject = {
        "model": settings.model,
        "max_tokens": max_tokens,
        "messages": messages,
        "stream": True,
    }
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": dict(CACHE)}]
    if request.tools:
        body["tools"] = encoded_tools(request.wire, NAME, request.tools, _tool)
    budget = thinking_budget(max_tokens)
    if budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    return body


class AnthropicDialect:
    """Anthropic Messages (api.anthropic.com and servers that speak it)."""

    @property
    def name(self) -> Provider:
        return NAME

    def url(self, base_url: str) -> str:
        return base_url + "/messages"

    def headers(self, key: str | None) -> dict[str, str]:
        headers = {"Accept": "text/event-stream", "anthropic-version": API_VERSION}
        if key:
            headers["x-api-key"] = key
        return headers

    def body(self, request: ModelRequest, settings: ModelSettings) -> dict[str, object]:
        return request_body(request, settings)

    def decoder(self) -> SSEDecoder:
        return SSEDecoder()

    def parser(self, secret: str | None) -> AnthropicParser:
        return AnthropicParser(secret)

    def whole_reply(self, raw: bytes, secret: str | None) -> AssistantMessage:
        """A non-streamed Messages response."""
        data = whole_object(raw, secret, field="content", what="a message")
        return reply_from_message(data, secret)

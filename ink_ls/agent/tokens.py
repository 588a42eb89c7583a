"""How many tokens the next request will hold, and the running totals a session reports.

The endpoint's `usage` of the latest reply is exact for what was sent then (`prompt_tokens`)
plus the reply itself (`completion_tokens`). What entered history since is estimated at one
token per `CHARS_PER_TOKEN` characters of its JSON form (JSON syntax makes that a slight
over-count for prose, about right for code), plus `MESSAGE_OVERHEAD` per message; an image
counts `IMAGE_TOKENS`. Without a usable reply (a fresh or just-compacted history, an endpoint
that reports no usage) the whole request is estimated.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ink_ls.core.memo import IdentityMemo
from ink_ls.core.messages import AssistantMessage, ImageBlock, Message, Usage

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4
IMAGE_TOKENS = 1_500


def estimate_text(text: str) -> int:
    """Tokens of a piece of text (rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def estimate_message(message: Message) -> int:
    """Tokens one history message adds to a request (images at a flat `IMAGE_TOKENS`)."""
    images = 0
    blocks: list[Any] = []
    if message.role == "user":
        blocks = list(message.content)
    elif message.role == "toolResult":
        blocks = [b for r in message.results for b in r.content]
    images = sum(1 for b in blocks if isinstance(b, ImageBlock))
    if images:
        dumped = message.model_dump(mode="json")
        _drop_image_data(dumped)
        text = json.dumps(dumped, ensure_ascii=False)
    else:
        text = message.model_dump_json(exclude={"usage"} if message.role == "assistant" else None)
    return estimate_text(text) + MESSAGE_OVERHEAD + images * IMAGE_TOKENS


def _drop_image_data(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") == "image":
            node["data"] = ""
        for value in node.values():
            _drop_image_data(value)
    elif isinstance(node, list):
        for value in node:
            _drop_image_data(value)


_ENTRY_CHARS: IdentityMemo[dict[str, Any], int] = IdentityMemo()
"""The length of each shared tool entry's JSON (`Tool.schema`)."""


def _json_length(entry: dict[str, Any]) -> int:
    return len(json.dumps(entry))


def estimate_fixed(system: str, tools: Sequence[dict[str, Any]]) -> int:
    """Tokens of the system prompt and the tool schemas (the length of `json.dumps(tools)`,
    from each shared entry's length measured once)."""
    entries = sum(_ENTRY_CHARS.get(None, entry, _json_length) for entry in tools)
    chars = 2 + entries + 2 * max(len(tools) - 1, 0)  # `[`, `]` and `, ` between entries
    return estimate_text(system) + -(-chars // CHARS_PER_TOKEN)


def context_tokens(history: Sequence[Message], system: str, tools: Sequence[dict[str, Any]]) -> int:
    """Tokens the next request holds: the latest reported reply's input + output plus an
    estimate of the messages after it, else an estimate of everything."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if isinstance(message, AssistantMessage) and message.usage.input_tokens > 0:
            reported = message.usage.input_tokens + message.usage.output_tokens
            return reported + sum(estimate_message(m) for m in history[index + 1 :])
    return estimate_fixed(system, tools) + sum(estimate_message(m) for m in history)


class TokenTotals(BaseModel):
    """Tokens of one session (or turn): what the endpoint reported, summed."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    requests: int = 0

    def add(self, usage: Usage) -> TokenTotals:
        return TokenTotals(
            input_tokens=self.input_tokens + usage.input_tokens,
            output_tokens=self.output_tokens + usage.output_tokens,
            cache_read_tokens=self.cache_read_tokens + usage.cache_read_tokens,
            requests=self.requests + 1,
        )


def share(tokens: int, window: int) -> int:
    """`tokens` as a whole percentage of `window` (what status lines show)."""
    return round(100 * tokens / window) if window > 0 else 0

"""Provider fields we keep without interpreting them: accumulated from stream deltas, sent back
as they were received (DeepSeek `reasoning_content`, OpenRouter `reasoning_details`, Gemini's
`extra_content` on tool calls, vLLM/SGLang `reasoning`, ids we do not know about).

Pure functions over JSON values. The rule for joining deltas is generic, so a new provider's
field round-trips without a special case: strings are appended, objects are merged key by key,
lists of objects that carry an `index` are merged item by item (their `text` and `summary`
appended, any other value replaced by the latest), other list items are appended, and `null`
never overwrites anything.
"""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue

DIALECT = "openai-chat"
"""This provider's key in `AssistantMessage.extra` and `ToolCall.extra`."""

MESSAGE_FIELDS = frozenset(
    {"role", "content", "tool_calls", "function_call", "refusal", "annotations", "audio"}
)
"""Delta fields of the assistant message we interpret or that are response-only."""
CALL_FIELDS = frozenset({"index", "id", "type", "function"})
"""Tool-call delta fields we interpret."""
REASONING_FIELDS = ("reasoning_content", "reasoning", "thinking")
"""String fields holding visible reasoning (DeepSeek, vLLM, SGLang, Qwen, OpenRouter, Ollama's
OpenAI layer; `thinking` is Ollama's native field)."""
_APPENDED_IN_ITEMS = frozenset({"text", "summary"})

Extra = dict[str, JsonValue]


def merge_into(acc: Extra, key: str, value: Any) -> None:
    """Join one streamed `value` of field `key` into `acc` (see the module's rule)."""
    if value is None:
        return
    old = acc.get(key)
    if isinstance(value, str):
        acc[key] = (old + value) if isinstance(old, str) else value
    elif isinstance(value, dict):
        target = old if isinstance(old, dict) else {}
        for k, v in value.items():
            merge_into(target, k, v)
        acc[key] = target
    elif isinstance(value, list):
        items = old if isinstance(old, list) else []
        for item in value:
            _merge_item(items, item)
        acc[key] = items
    else:
        acc[key] = value


def _merge_item(items: list[JsonValue], item: Any) -> None:
    index = item.get("index") if isinstance(item, dict) else None
    if isinstance(index, int) and not isinstance(index, bool):
        for existing in items:
            if isinstance(existing, dict) and existing.get("index") == index:
                for k, v in item.items():
                    if v is None:
                        continue
                    old = existing.get(k)
                    if k in _APPENDED_IN_ITEMS and isinstance(old, str) and isinstance(v, str):
                        existing[k] = old + v
                    else:
                        existing[k] = v
                return
        items.append(dict(item))
        return
    items.append(item)


def unknown_fields(delta: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The fields of `delta` we do not interpret (null values left out)."""
    return {k: v for k, v in delta.items() if k not in known and v is not None}


def reasoning_text(delta: dict[str, Any]) -> str:
    """The visible reasoning a delta adds (the first reasoning field it carries)."""
    for name in REASONING_FIELDS:
        value = delta.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def content_parts(parts: list[Any]) -> tuple[str, str]:
    """(text, reasoning) of a `content` sent as typed parts (Mistral's Magistral:
    `{"type": "thinking", "thinking": [{"type": "text", "text": …}]}` and `{"type": "text"}`)."""
    text: list[str] = []
    thought: list[str] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            text.append(part["text"])
        elif part.get("type") == "thinking":
            inner = part.get("thinking")
            inner = inner if isinstance(inner, list) else [inner]
            for piece in inner:
                if isinstance(piece, str):
                    thought.append(piece)
                elif isinstance(piece, dict) and isinstance(piece.get("text"), str):
                    thought.append(piece["text"])
    return "".join(text), "".join(thought)

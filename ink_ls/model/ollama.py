"""Ollama's native chat (`POST /api/chat`, a stream of JSON lines), used in place of its OpenAI
layer when the user sets the context window: only the native API takes `options.num_ctx`, so
this is how a model runs with more than Ollama's default window without a Modelfile.

Pure: the request body, and each streamed line translated into the Chat Completions chunk
shape the assembler already joins (thinking, tool calls, finish, usage). The fields Ollama
sends that we keep go under the `"ollama"` key of `extra`, and come back as received.
"""

from __future__ import annotations

import json
from typing import Any

from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    Message,
    TextBlock,
    UserMessage,
)
from ink_ls.model.base import ModelRequest
from ink_ls.model.convert import image_placeholder, openai_tool
from ink_ls.model.wire import RawJSON, encoded_items, encoded_tools

DIALECT = "ollama"
JSONObject = dict[str, Any]


def _user(blocks: list[ContentBlock], *, vision: bool, role: str = "user") -> JSONObject:
    texts = [
        b.text if isinstance(b, TextBlock) else "" if vision else image_placeholder(b)
        for b in blocks
    ]
    out: JSONObject = {"role": role, "content": "\n".join(t for t in texts if t)}
    images = [b.data for b in blocks if isinstance(b, ImageBlock)]
    if vision and images:
        out["images"] = images
    return out


def _arguments(raw: str) -> Any:
    """Ollama wants the arguments as an object; a call whose text is not one sends `{}`."""
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _assistant(message: AssistantMessage) -> JSONObject | None:
    if not message.text and not message.tool_calls:
        return None
    out: JSONObject = dict(message.extra.get(DIALECT, {}))
    out.update(role="assistant", content=message.text)
    if message.tool_calls:
        out["tool_calls"] = [
            {
                **call.extra.get(DIALECT, {}),
                "function": {"name": call.name, "arguments": _arguments(call.arguments)},
            }
            for call in message.tool_calls
        ]
    return out


def _items(message: Message, *, vision: bool) -> list[JSONObject]:
    """One history message as native `messages` items."""
    if isinstance(message, UserMessage):
        return [_user(message.content, vision=vision)]
    if isinstance(message, AssistantMessage):
        converted = _assistant(message)
        return [converted] if converted is not None else []
    out: list[JSONObject] = []
    for result in message.results:
        entry = _user(result.content, vision=vision, role="tool")
        entry["tool_name"] = result.tool_name
        out.append(entry)
    return out


def chat_messages(request: ModelRequest, *, vision: bool) -> list[JSONObject] | RawJSON:
    """The native `messages`: the system prompt, then history in order (encoded from the
    conversation's wire cache when the request has one)."""
    head = [{"role": "system", "content": request.system}] if request.system else []
    return encoded_items(
        request.wire,
        f"{DIALECT}:vision={vision}",
        request.messages,
        lambda message: _items(message, vision=vision),
        head,
    )


def chat_body(request: ModelRequest, settings: ModelSettings) -> JSONObject:
    """The whole POST /api/chat body, with the window as `options.num_ctx`."""
    options: JSONObject = {}
    if settings.context_window is not None:
        options["num_ctx"] = settings.context_window
    if settings.max_tokens is not None:
        options["num_predict"] = settings.max_tokens
    body: JSONObject = {
        "model": settings.model,
        "messages": chat_messages(request, vision=settings.vision),
        "stream": True,
        "options": options,
    }
    if request.tools:
        body["tools"] = encoded_tools(request.wire, DIALECT, request.tools, openai_tool)
    return body


class LineTranslator:
    """One streamed line of `/api/chat` → a Chat Completions chunk (calls numbered in order:
    Ollama sends each call whole, and older releases give them no index)."""

    def __init__(self) -> None:
        self._calls = 0

    def chunk(self, line: Any) -> Any:
        if not isinstance(line, dict):
            return line  # the assembler reports it
        if line.get("error") is not None:
            return {"error": line["error"]}
        message = line.get("message")
        message = message if isinstance(message, dict) else {}
        delta: JSONObject = {}
        for key, value in message.items():
            if key not in ("role", "tool_calls", "images") and value not in (None, ""):
                delta[key] = value  # content, thinking, and what a newer release adds
        calls = []
        for call in message.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict):
                continue
            args = fn.get("arguments")
            calls.append(
                {
                    "index": self._calls,
                    "id": call.get("id") or "",
                    "function": {
                        "name": fn.get("name") or "",
                        "arguments": args if isinstance(args, str) else json.dumps(args or {}),
                    },
                }
            )
            self._calls += 1
        if calls:
            delta["tool_calls"] = calls
        out: JSONObject = {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        if line.get("done"):
            finish = "length" if line.get("done_reason") == "length" else "stop"
            out["choices"][0]["finish_reason"] = finish
            out["usage"] = {
                "prompt_tokens": line.get("prompt_eval_count") or 0,
                "completion_tokens": line.get("eval_count") or 0,
            }
        return out

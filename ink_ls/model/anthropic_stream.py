"""Anthropic's streaming events → stream items and one `AssistantMessage`.

Pure: decoded SSE events in, items out. Content blocks are assembled by their `index`:
text, thinking (text and signature deltas joined exactly as sent), redacted thinking (kept
whole) and `tool_use` (its `input_json_delta` pieces joined into the call's arguments). A
call is handed out early once a later block begins or the reply stopped for any reason but
the token limit. `message_stop` completes the reply; a stream that ends after the
`message_delta` that carries the stop reason is complete too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import JsonValue

from ink_ls.core.messages import AssistantMessage, AssistantStop, ToolCall, Usage
from ink_ls.model.base import ReplyDone, StreamItem, TextDelta, ThinkingDelta, ToolCallReady
from ink_ls.model.errors import ModelProtocolError, excerpt, stream_error
from ink_ls.model.sse import SSEEvent

NAME = "anthropic"


@dataclass
class _Block:
    type: str
    parts: list[str] = field(default_factory=list)
    """Text, thinking text or the input JSON, as the deltas came."""
    signature: list[str] = field(default_factory=list)
    raw: dict[str, JsonValue] = field(default_factory=dict)
    """The block as `content_block_start` gave it (redacted thinking is kept this way)."""
    handed: bool = False


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


class AnthropicParser:
    """One Messages stream (`message_start` … `message_stop`)."""

    cut_off = (
        "the reply was cut off: the model endpoint closed the stream before the reply was "
        "complete (no stop_reason); the partial reply was discarded"
    )

    def __init__(self, secret: str | None) -> None:
        self._secret = secret
        self._blocks: dict[int, _Block] = {}
        self._stop: str | None = None
        self._usage: dict[str, int] = {}

    def feed(self, event: SSEEvent) -> list[StreamItem]:
        """Items for one event; `ReplyDone` at `message_stop`."""
        try:
            data = json.loads(event.data)
        except ValueError:
            raise ModelProtocolError(
                "the model endpoint sent a stream item that is not JSON: "
                f"{excerpt(event.data, self._secret, 120)}"
            ) from None
        if not isinstance(data, dict):
            return []
        kind = _str(data.get("type")) or event.event
        if kind == "error":  # e.g. overloaded_error after the stream began
            started = any(b.parts != [""] for b in self._blocks.values())
            raise stream_error(json.dumps(data), self._secret, started=started)
        if kind == "message_start":
            message = data.get("message")
            if isinstance(message, dict):
                self._take_usage(message.get("usage"))
            return []
        if kind == "content_block_start":
            return self._start(data)
        if kind == "content_block_delta":
            return self._delta(data)
        if kind == "message_delta":
            delta = data.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("stop_reason"), str):
                self._stop = delta["stop_reason"]
            self._take_usage(data.get("usage"))
            # a reply cut at the token limit hands out no call: the loop refuses them all
            return self._ready(None) if self._stop != "max_tokens" else []
        if kind == "message_stop":
            return [ReplyDone(self._finish())]
        return []  # ping, content_block_stop, and events added later

    @property
    def finished(self) -> bool:
        """The `message_delta` with the stop reason arrived."""
        return self._stop is not None

    def end(self) -> AssistantMessage:
        """The reply of a stream that ended after its stop reason but before `message_stop`."""
        return self._finish()

    def _start(self, data: dict[str, Any]) -> list[StreamItem]:
        raw = data.get("content_block")
        if not isinstance(raw, dict):
            return []
        block = _Block(type=_str(raw.get("type")), raw=raw)
        block.parts.append(_str(raw.get("text") or raw.get("thinking")))
        block.signature.append(_str(raw.get("signature")))
        index = _int(data.get("index"))
        self._blocks[index] = block
        ready = self._ready(index)  # the stream moved past the blocks before this one
        if block.type == "text" and block.parts[0]:
            ready.append(TextDelta(block.parts[0]))
        return ready

    def _delta(self, data: dict[str, Any]) -> list[StreamItem]:
        block = self._blocks.get(_int(data.get("index")))
        delta = data.get("delta")
        if block is None or not isinstance(delta, dict):
            return []
        kind = delta.get("type")
        if kind == "text_delta":
            text = _str(delta.get("text"))
            block.parts.append(text)
            return [TextDelta(text)] if text else []
        if kind == "thinking_delta":
            text = _str(delta.get("thinking"))
            block.parts.append(text)
            return [ThinkingDelta(text)] if text else []
        if kind == "signature_delta":
            block.signature.append(_str(delta.get("signature")))
        elif kind == "input_json_delta":
            block.parts.append(_str(delta.get("partial_json")))
        return []

    def _ready(self, end: int | None) -> list[StreamItem]:
        """`ToolCallReady` for the complete calls among the blocks before index `end` (all
        of them for None)."""
        out: list[StreamItem] = []
        for position, (index, block) in enumerate(self._calls()):
            if (end is not None and index >= end) or block.handed:
                continue
            call = _call(block)
            try:
                complete = isinstance(json.loads(call.arguments), dict)
            except (ValueError, RecursionError):
                complete = False
            if complete:
                block.handed = True
                out.append(ToolCallReady(position, call))
        return out

    def _calls(self) -> list[tuple[int, _Block]]:
        return [(i, b) for i, b in sorted(self._blocks.items()) if b.type == "tool_use"]

    def _take_usage(self, raw: Any) -> None:
        if isinstance(raw, dict):  # later figures are cumulative: they replace earlier ones
            for name, value in raw.items():
                if isinstance(value, int) and not isinstance(value, bool):
                    self._usage[name] = value

    def _finish(self) -> AssistantMessage:
        blocks = [b for _, b in sorted(self._blocks.items())]
        calls = [_call(b) for b in blocks if b.type == "tool_use"]
        thinking: list[JsonValue] = []
        for b in blocks:
            if b.type == "thinking":
                thinking.append(
                    {
                        "type": "thinking",
                        "thinking": "".join(b.parts),
                        "signature": "".join(b.signature),
                    }
                )
            elif b.type == "redacted_thinking":
                thinking.append(b.raw)
        visible = "".join("".join(b.parts) for b in blocks if b.type == "thinking")
        stop, error = _stop_reason(self._stop, bool(calls))
        u = self._usage
        cached = u.get("cache_read_input_tokens", 0)
        return AssistantMessage(
            text="".join("".join(b.parts) for b in blocks if b.type == "text"),
            tool_calls=calls,
            stop_reason=stop,
            error=error,
            thinking=visible or None,
            extra={NAME: {"thinking": thinking}} if thinking else {},
            usage=Usage(
                # our input figure is the whole prompt, as Chat Completions counts it
                input_tokens=u.get("input_tokens", 0)
                + u.get("cache_creation_input_tokens", 0)
                + cached,
                output_tokens=u.get("output_tokens", 0),
                cache_read_tokens=cached,
            ),
        )


def _call(block: _Block) -> ToolCall:
    raw = block.raw
    arguments = "".join(block.parts).strip()
    if not arguments and isinstance(raw.get("input"), dict) and raw["input"]:
        arguments = json.dumps(raw["input"])  # a whole input in the start event (non-streamed)
    return ToolCall(id=_str(raw.get("id")), name=_str(raw.get("name")), arguments=arguments or "{}")


def _stop_reason(reason: str | None, has_calls: bool) -> tuple[AssistantStop, str | None]:
    if reason in ("max_tokens", "model_context_window_exceeded"):
        return "max_tokens", None
    if reason == "refusal":
        return "error", "the model declined to continue (stop reason: refusal)"
    return ("tool_use" if has_calls else "stop"), None


def reply_from_message(data: dict[str, Any], secret: str | None) -> AssistantMessage:
    """A whole (non-streamed) Messages response, through the same assembly as a stream."""
    parser = AnthropicParser(secret)
    parser._take_usage(data.get("usage"))
    content = data.get("content")
    for index, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, dict):
            parser._start({"index": index, "content_block": block})
    parser._stop = _str(data.get("stop_reason")) or "end_turn"
    return parser._finish()

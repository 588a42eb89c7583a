"""Byte streams as Anthropic's Messages API and OpenAI's Responses API send them, for replay by
the loopback model server (`Reply(raw=…)`).

The event sequences, field names and nesting follow each provider's streaming documentation:
Anthropic `message_start` … `message_stop` with `ping`s, thinking blocks with signature deltas,
`tool_use` input as `input_json_delta` pieces; Responses `response.created` …
`response.completed` with `sequence_number`s, a reasoning item whose `…added` form lacks the
`encrypted_content` its `…done` form carries, and function-call argument deltas.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.model_server import Reply

HOLD = b"\x00HOLD\x00"
"""Placed between two events: where a replay holds (see `split_hold`)."""


def sse(event: str, data: dict[str, Any]) -> bytes:
    """One event as both providers frame it: `event:` line, one `data:` line, blank line."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def split_hold(raw: bytes) -> tuple[bytes, int | None]:
    """The stream without its `HOLD` marker, and the marker's offset (None without one)."""
    at = raw.find(HOLD)
    if at < 0:
        return raw, None
    return raw.replace(HOLD, b""), at


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# ---- Anthropic Messages -----------------------------------------------------------------------


@dataclass
class AnthropicTurn:
    """One assistant message: thinking blocks, text, tool uses; usage as the API reports it."""

    thinking: list[tuple[str, str]] = field(default_factory=list)
    """(thinking text, signature) per thinking block."""
    redacted: list[str] = field(default_factory=list)
    """`data` of redacted_thinking blocks (after the thinking blocks)."""
    text: str = ""
    tools: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    """(tool_use id, name, input)."""
    stop_reason: str | None = None
    input_tokens: int = 12
    cache_read: int = 0
    cache_write: int = 0
    output_tokens: int = 40
    hold_after_text: bool = False
    """Put `HOLD` after the first text delta (a cancel mid-stream)."""


def anthropic_stream(turn: AnthropicTurn) -> bytes:
    """The whole `text/event-stream` body of one streamed Messages response."""
    out = [
        sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5-20250929",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": turn.input_tokens,
                        "cache_creation_input_tokens": turn.cache_write,
                        "cache_read_input_tokens": turn.cache_read,
                        "output_tokens": 1,
                    },
                },
            },
        )
    ]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]], hold: bool = False) -> None:
        nonlocal index
        out.append(
            sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        if index == 0:
            out.append(sse("ping", {"type": "ping"}))
        for n, delta in enumerate(deltas):
            out.append(
                sse(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
            if hold and n == 0:
                out.append(HOLD)
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    for thought, signature in turn.thinking:
        deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces(thought, 24)]
        deltas.append({"type": "signature_delta", "signature": signature})
        block({"type": "thinking", "thinking": "", "signature": ""}, deltas)
    for data in turn.redacted:
        block({"type": "redacted_thinking", "data": data}, [])
    if turn.text:
        block(
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": p} for p in pieces(turn.text, 7)],
            hold=turn.hold_after_text,
        )
    for tool_id, name, args in turn.tools:
        arg_text = json.dumps(args)
        deltas = [{"type": "input_json_delta", "partial_json": ""}]
        deltas += [{"type": "input_json_delta", "partial_json": p} for p in pieces(arg_text, 9)]
        block({"type": "tool_use", "id": tool_id, "name": name, "input": {}}, deltas)
    stop = turn.stop_reason or ("tool_use" if turn.tools else "end_turn")
    out.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": turn.output_tokens},
            },
        )
    )
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def anthropic_error(kind: str, message: str) -> str:
    """An Anthropic error body (HTTP error responses and the `error` stream event)."""
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}})


# ---- OpenAI Responses -------------------------------------------------------------------------


@dataclass
class ResponsesTurn:
    """One response: reasoning items, text, function calls; usage as the API reports it."""

    reasoning: list[tuple[str, str, str]] = field(default_factory=list)
    """(item id, summary text, encrypted_content) per reasoning item."""
    text: str = ""
    calls: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)
    """(item id, call_id, name, arguments)."""
    status: str = "completed"
    incomplete_reason: str | None = None
    input_tokens: int = 30
    cached_tokens: int = 0
    output_tokens: int = 50
    hold_after_text: bool = False


class _Seq:
    def __init__(self) -> None:
        self.n = -1
        self.out: list[bytes] = []

    def __call__(self, kind: str, **data: Any) -> None:
        self.n += 1
        self.out.append(sse(kind, {"type": kind, "sequence_number": self.n, **data}))


def responses_stream(
    turn: ResponsesTurn, response_id: str = "resp_68af4030592c81938ec0a5fbab4a3e9f"
) -> bytes:
    """The whole `text/event-stream` body of one streamed Responses call."""
    ev = _Seq()
    base: dict[str, Any] = {
        "id": response_id,
        "object": "response",
        "created_at": 1756315696,
        "model": "gpt-5-codex",
        "output": [],
        "usage": None,
    }
    ev("response.created", response={**base, "status": "in_progress"})
    ev("response.in_progress", response={**base, "status": "in_progress"})
    output: list[dict[str, Any]] = []
    for item_id, summary, encrypted in turn.reasoning:
        index = len(output)
        ev(
            "response.output_item.added",
            output_index=index,
            item={"id": item_id, "type": "reasoning", "summary": []},
        )
        part = {"type": "summary_text", "text": ""}
        ev(
            "response.reasoning_summary_part.added",
            item_id=item_id,
            output_index=index,
            summary_index=0,
            part=part,
        )
        for p in pieces(summary, 11):
            ev(
                "response.reasoning_summary_text.delta",
                item_id=item_id,
                output_index=index,
                summary_index=0,
                delta=p,
            )
        ev(
            "response.reasoning_summary_text.done",
            item_id=item_id,
            output_index=index,
            summary_index=0,
            text=summary,
        )
        ev(
            "response.reasoning_summary_part.done",
            item_id=item_id,
            output_index=index,
            summary_index=0,
            part={"type": "summary_text", "text": summary},
        )
        done = {
            "id": item_id,
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": summary}],
            "encrypted_content": encrypted,
        }
        ev("response.output_item.done", output_index=index, item=done)
        output.append(done)
    if turn.text:
        index = len(output)
        msg_id = "msg_68af4033b8c48193b7b0a6c8c2a0ca5d"
        ev(
            "response.output_item.added",
            output_index=index,
            item={
                "id": msg_id,
                "type": "message",
                "status": "in_progress",
                "content": [],
                "role": "assistant",
            },
        )
        empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        ev(
            "response.content_part.added",
            item_id=msg_id,
            output_index=index,
            content_index=0,
            part=empty,
        )
        for n, p in enumerate(pieces(turn.text, 6)):
            ev(
                "response.output_text.delta",
                item_id=msg_id,
                output_index=index,
                content_index=0,
                delta=p,
                logprobs=[],
            )
            if n == 0 and turn.hold_after_text:
                ev.out.append(HOLD)
        ev(
            "response.output_text.done",
            item_id=msg_id,
            output_index=index,
            content_index=0,
            text=turn.text,
            logprobs=[],
        )
        full = {**empty, "text": turn.text}
        ev(
            "response.content_part.done",
            item_id=msg_id,
            output_index=index,
            content_index=0,
            part=full,
        )
        done = {
            "id": msg_id,
            "type": "message",
            "status": "completed",
            "content": [full],
            "role": "assistant",
        }
        ev("response.output_item.done", output_index=index, item=done)
        output.append(done)
    for item_id, call_id, name, args in turn.calls:
        index = len(output)
        arg_text = json.dumps(args)
        item = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": call_id,
            "name": name,
        }
        ev("response.output_item.added", output_index=index, item=item)
        for p in pieces(arg_text, 8):
            ev(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=index,
                delta=p,
            )
        ev(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=index,
            arguments=arg_text,
        )
        done = {**item, "status": "completed", "arguments": arg_text}
        ev("response.output_item.done", output_index=index, item=done)
        output.append(done)
    usage = {
        "input_tokens": turn.input_tokens,
        "input_tokens_details": {"cached_tokens": turn.cached_tokens},
        "output_tokens": turn.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 16},
        "total_tokens": turn.input_tokens + turn.output_tokens,
    }
    final: dict[str, Any] = {**base, "status": turn.status, "output": output, "usage": usage}
    if turn.incomplete_reason:
        final["incomplete_details"] = {"reason": turn.incomplete_reason}
    kind = "response.completed" if turn.status == "completed" else f"response.{turn.status}"
    ev(kind, response=final)
    return b"".join(ev.out)


def replay(raw: bytes, hold: threading.Event | None = None) -> Reply:
    """A scripted reply that sends `raw` byte for byte, holding at its `HOLD` marker until
    `hold` is set (the marker is dropped when there is no `hold`)."""
    body, at = split_hold(raw)
    return Reply(raw=body, raw_hold_at=at, hold=hold)

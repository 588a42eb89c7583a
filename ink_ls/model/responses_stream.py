"""The Responses API's streaming events → stream items and one `AssistantMessage`.

Pure: decoded SSE events in, items out. Output items are kept as `response.output_item.done`
gives them (the `…added` value can be incomplete: a reasoning item gets its
`encrypted_content` only when done). Text and reasoning-summary deltas are shown as they
come; a function call is handed out early once its item is done with status `completed`.
`response.completed` / `response.incomplete` complete the reply; `response.failed` and
`error` events fail it with the server's message.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import JsonValue

from ink_ls.core.messages import AssistantMessage, AssistantStop, ToolCall, Usage
from ink_ls.model.base import ReplyDone, StreamItem, TextDelta, ThinkingDelta, ToolCallReady
from ink_ls.model.errors import ModelProtocolError, excerpt, stream_error
from ink_ls.model.sse import SSEEvent

NAME = "openai-responses"
_THINKING = ("response.reasoning_summary_text.delta", "response.reasoning_text.delta")


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def parse_usage(raw: Any) -> Usage:
    """`usage` of a response → our `Usage` (`input_tokens` already counts the cached ones)."""
    if not isinstance(raw, dict):
        return Usage()
    details = raw.get("input_tokens_details")
    return Usage(
        input_tokens=_int(raw.get("input_tokens")),
        output_tokens=_int(raw.get("output_tokens")),
        cache_read_tokens=_int(details.get("cached_tokens")) if isinstance(details, dict) else 0,
    )


class ResponsesParser:
    """One Responses stream (`response.created` … `response.completed`)."""

    cut_off = (
        "the reply was cut off: the model endpoint closed the stream before the response "
        "completed; the partial reply was discarded"
    )
    finished = False
    """The completing event is itself the end: there is no later marker to miss."""

    def __init__(self, secret: str | None) -> None:
        self._secret = secret
        self._items: dict[int, dict[str, JsonValue]] = {}
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._calls = 0

    def feed(self, event: SSEEvent) -> list[StreamItem]:
        """Items for one event; `ReplyDone` once the response completed."""
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
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            text = _str(data.get("delta"))
            self._text.append(text)
            return [TextDelta(text)] if text else []
        if kind in _THINKING:
            text = _str(data.get("delta"))
            self._thinking.append(text)
            return [ThinkingDelta(text)] if text else []
        if kind == "response.reasoning_summary_part.added" and self._thinking:
            self._thinking.append("\n\n")  # a new paragraph of the summary
            return [ThinkingDelta("\n\n")]
        if kind == "response.output_item.done":
            return self._item_done(data)
        if kind in ("response.completed", "response.incomplete"):
            response = data.get("response")
            return [ReplyDone(self._finish(response if isinstance(response, dict) else {}))]
        if kind in ("response.failed", "error"):
            started = bool(self._text or self._thinking or self._items)
            raise stream_error(self._error_payload(data), self._secret, started=started)
        return []  # created, in_progress, added, argument deltas: the done item has it all

    def end(self) -> AssistantMessage:
        """Never called: a stream is `finished` only by the event that completes it."""
        return self._finish({})

    @staticmethod
    def _error_payload(data: dict[str, Any]) -> str:
        """The error object of a `response.failed` (its `response.error`) or `error` event."""
        response = data.get("response")
        error = response.get("error") if isinstance(response, dict) else None
        return json.dumps(error if isinstance(error, dict) else data)

    def _item_done(self, data: dict[str, Any]) -> list[StreamItem]:
        item = data.get("item")
        if not isinstance(item, dict):
            return []
        self._items[_int(data.get("output_index"))] = item
        if item.get("type") != "function_call":
            return []
        position, self._calls = self._calls, self._calls + 1
        call = _call(item)
        try:
            complete = isinstance(json.loads(call.arguments), dict)
        except (ValueError, RecursionError):
            complete = False
        if complete and item.get("status", "completed") == "completed":
            return [ToolCallReady(position, call)]
        return []

    def _finish(self, response: dict[str, Any]) -> AssistantMessage:
        items = [item for _, item in sorted(self._items.items())]
        if not items and isinstance(response.get("output"), list):
            items = [i for i in response["output"] if isinstance(i, dict)]
        calls = [_call(i) for i in items if i.get("type") == "function_call"]
        text = "".join(self._text) or _output_text(items)
        stop: AssistantStop = "tool_use" if calls else "stop"
        error: str | None = None
        details = response.get("incomplete_details")
        if response.get("status") == "incomplete":
            reason = details.get("reason") if isinstance(details, dict) else None
            if reason == "content_filter":
                stop, error = "error", "the provider's content filter stopped the reply"
            else:
                stop = "max_tokens"
        thinking = "".join(self._thinking) or _summary_text(items)
        return AssistantMessage(
            text=text,
            tool_calls=calls,
            stop_reason=stop,
            error=error,
            usage=parse_usage(response.get("usage")),
            thinking=thinking or None,
            extra={NAME: {"items": list(items)}} if items else {},
        )


def _call(item: dict[str, Any]) -> ToolCall:
    extra: dict[str, dict[str, JsonValue]] = {}
    if isinstance(item.get("id"), str):
        extra[NAME] = {"id": item["id"]}
    return ToolCall(
        id=_str(item.get("call_id")) or _str(item.get("id")),
        name=_str(item.get("name")),
        arguments=_str(item.get("arguments")).strip() or "{}",
        extra=extra,
    )


def _output_text(items: list[dict[str, Any]]) -> str:
    parts: list[str] = []
    for item in items:
        if item.get("type") == "message" and isinstance(item.get("content"), list):
            for part in item["content"]:
                if isinstance(part, dict) and part.get("type") == "output_text":
                    parts.append(_str(part.get("text")))
    return "".join(parts)


def _summary_text(items: list[dict[str, Any]]) -> str:
    parts: list[str] = []
    for item in items:
        if item.get("type") == "reasoning" and isinstance(item.get("summary"), list):
            parts.extend(_str(p.get("text")) for p in item["summary"] if isinstance(p, dict))
    return "\n\n".join(p for p in parts if p)


def reply_from_response(data: dict[str, Any], secret: str | None) -> AssistantMessage:
    """A whole (non-streamed) response object, through the same assembly as a stream."""
    parser = ResponsesParser(secret)
    return parser._finish(data)

"""Assembles streamed chat-completion chunks into one `AssistantMessage`.

Pure: it gets decoded JSON chunks and returns text deltas; the client does the I/O. Tool-call
deltas are joined by `index` (falling back to `id` for servers that omit it); arguments stay
the raw text the model sent, valid JSON or not — the tool pipeline reports bad arguments to
the model, so nothing here may fail on them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ink_ls.core.messages import AssistantMessage, AssistantStop, ToolCall, Usage
from ink_ls.model.errors import ModelProtocolError, excerpt


@dataclass
class _PartialCall:
    index: int | None
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def parse_usage(raw: Any) -> Usage | None:
    """OpenAI `usage` → our `Usage` (cached prompt tokens when the server reports them)."""
    if not isinstance(raw, dict):
        return None
    details = raw.get("prompt_tokens_details")
    cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
    return Usage(
        input_tokens=_int(raw.get("prompt_tokens")),
        output_tokens=_int(raw.get("completion_tokens")),
        cache_read_tokens=cached,
    )


class StreamAssembler:
    """Feed each decoded `data:` object to `feed`; call `finish` after `[DONE]`."""

    def __init__(self, *, secret: str | None = None) -> None:
        self._secret = secret
        self._text: list[str] = []
        self._calls: list[_PartialCall] = []
        self._finish_reason: str | None = None
        self._usage: Usage | None = None

    @property
    def text(self) -> str:
        """The text assembled so far."""
        return "".join(self._text)

    def feed(self, chunk: Any) -> str:
        """Take one chunk; return the text it adds ("" when none)."""
        if not isinstance(chunk, dict):
            raise ModelProtocolError(
                f"the model endpoint sent an unexpected stream item: {excerpt(str(chunk), None)}"
            )
        if chunk.get("error") is not None:
            detail = excerpt(_dumps(chunk), self._secret)
            raise ModelProtocolError(f"the model endpoint reported an error mid-reply: {detail}")
        usage = parse_usage(chunk.get("usage"))
        if usage is not None:
            self._usage = usage
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices:
            return ""
        choice = choices[0]  # we never ask for n > 1
        if not isinstance(choice, dict):
            return ""
        delta = choice.get("delta")
        added = ""
        if isinstance(delta, dict):
            content = delta.get("content")
            if isinstance(content, str) and content:
                self._text.append(content)
                added = content
            calls = delta.get("tool_calls")
            if isinstance(calls, list):
                for call in calls:
                    if isinstance(call, dict):
                        self._tool_delta(call)
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self._finish_reason = reason
        return added

    def _tool_delta(self, call: dict[str, Any]) -> None:
        raw_index, raw_id = call.get("index"), call.get("id")
        index = raw_index if isinstance(raw_index, int) else None
        call_id = raw_id if isinstance(raw_id, str) else ""
        slot = self._slot(index, call_id)
        if call_id and not slot.id:
            slot.id = call_id
        fn = call.get("function")
        if isinstance(fn, dict):
            name = fn.get("name")
            if isinstance(name, str) and name and name != slot.name:
                slot.name += name
            args = fn.get("arguments")
            if isinstance(args, str):
                slot.arguments.append(args)
            elif isinstance(args, dict):  # a few servers send the object itself
                slot.arguments.append(_dumps(args))

    def _slot(self, index: int | None, call_id: str) -> _PartialCall:
        if index is not None:
            for slot in self._calls:
                # a different id under a known index means a server that reuses index 0
                if slot.index == index and not (call_id and slot.id and slot.id != call_id):
                    return slot
        elif call_id:
            for slot in self._calls:
                if slot.id == call_id:
                    return slot
        elif self._calls:
            return self._calls[-1]  # no index, no id: a continuation of the last call
        slot = _PartialCall(index=index)
        self._calls.append(slot)
        return slot

    def finish(self) -> AssistantMessage:
        """The assembled message. `length` → `max_tokens`; tool calls → `tool_use`."""
        calls: list[ToolCall] = []
        seen: set[str] = set()
        for n, slot in enumerate(self._calls):
            call_id = slot.id if slot.id and slot.id not in seen else f"call_{n}_{len(seen)}"
            seen.add(call_id)
            arguments = "".join(slot.arguments)
            calls.append(
                ToolCall(id=call_id, name=slot.name, arguments=arguments.strip() or "{}")
            )
        stop: AssistantStop
        error: str | None = None
        if self._finish_reason == "length":
            stop = "max_tokens"
        elif calls:
            stop = "tool_use"
        elif self._finish_reason == "content_filter":
            stop, error = "error", "the provider's content filter stopped the reply"
        else:
            stop = "stop"
        return AssistantMessage(
            text=self.text,
            tool_calls=calls,
            stop_reason=stop,
            usage=self._usage or Usage(),
            error=error,
        )


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)

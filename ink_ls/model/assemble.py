"""Assembles streamed chat-completion chunks into one `AssistantMessage`.

Pure: it gets decoded JSON chunks and returns text deltas; the client does the I/O. Tool-call
deltas are joined by `index` (falling back to `id` for servers that omit it); arguments stay
the raw text the model sent, valid JSON or not — the tool pipeline reports bad arguments to
the model, so nothing here may fail on them.

A call is *ready* once the stream has moved past it (a later call began, or the choice
finished for any reason but the token limit): `take_ready` hands such calls out so the agent
can start them while the reply still streams. Only a call whose arguments are a complete JSON
object is handed out, and it is then frozen: what was handed out is what the final message
carries (a late fragment for it, which could only make the JSON invalid, is dropped with a
warning). Any other call stays open, and the final message has the last word on it.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from ink_ls.core.messages import AssistantMessage, AssistantStop, ToolCall, Usage
from ink_ls.model import extras
from ink_ls.model.errors import ModelProtocolError, excerpt, stream_error

log = logging.getLogger(__name__)


@dataclass
class _PartialCall:
    index: int | None
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    sealed: ToolCall | None = None
    """Set once the stream moved past this call (its final id is fixed then)."""
    frozen: bool = False
    """Sealed with arguments that are complete JSON: later fragments are dropped."""
    extra: extras.Extra = field(default_factory=dict)
    """Fields of the call we keep without interpreting (Gemini's `extra_content`)."""


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

    def __init__(self, *, secret: str | None = None, dialect: str = extras.DIALECT) -> None:
        self._secret = secret
        self._dialect = dialect
        """The key under which the fields we keep are stored in `extra`."""
        self._text: list[str] = []
        self._calls: list[_PartialCall] = []
        self._finish_reason: str | None = None
        self._usage: Usage | None = None
        self._ids: set[str] = set()
        self._ready: list[tuple[int, ToolCall]] = []
        self._extra: extras.Extra = {}
        self._thinking: list[str] = []
        self._thinking_new: list[str] = []

    @property
    def finished(self) -> bool:
        """Whether the choice's `finish_reason` arrived: the reply is complete, with or
        without a `[DONE]` after it (llama.cpp forks, proxies)."""
        return self._finish_reason is not None

    def take_thinking(self) -> str:
        """The visible reasoning added since the last take ("" when none)."""
        added = "".join(self._thinking_new)
        self._thinking_new = []
        return added

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
        if chunk.get("error") is not None or chunk.get("object") == "error":
            raise stream_error(_dumps(chunk), self._secret, started=bool(self._text))
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
            thought = extras.reasoning_text(delta)
            if isinstance(content, list):  # Mistral's reasoning models: typed parts
                content, part_thought = extras.content_parts(content)
                thought += part_thought
            if isinstance(content, str) and content:
                self._text.append(content)
                added = content
            for key, value in extras.unknown_fields(delta, extras.MESSAGE_FIELDS).items():
                extras.merge_into(self._extra, key, value)
            if thought:
                self._thinking.append(thought)
                self._thinking_new.append(thought)
            calls = delta.get("tool_calls")
            if isinstance(calls, list):
                for call in calls:
                    if isinstance(call, dict):
                        self._tool_delta(call)
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self._finish_reason = reason
            if reason != "length":  # a cut reply's calls are never ready: all are refused
                self._seal_upto(len(self._calls))
        return added

    def take_ready(self) -> list[tuple[int, ToolCall]]:
        """(position, call) of the calls that became ready since the last take, in call order.

        Only frozen calls (arguments a complete JSON object) are handed out, so positions may
        have gaps; a gap is a call that will only be known from the final message.
        """
        ready, self._ready = self._ready, []
        return ready

    def _seal_upto(self, end: int) -> None:
        """Seal the calls before index `end` (in order, so ids are fixed in call order)."""
        for n in range(end):
            slot = self._calls[n]
            if slot.sealed is not None:
                continue
            call_id = self._final_id(slot, n)
            slot.sealed = self._call(slot, call_id)
            raw = "".join(slot.arguments).strip()
            try:  # empty arguments may still come (servers that interleave calls)
                slot.frozen = bool(raw) and isinstance(json.loads(raw), dict)
            except (ValueError, RecursionError):
                slot.frozen = False
            if slot.frozen:
                self._ready.append((n, slot.sealed))

    def _final_id(self, slot: _PartialCall, n: int) -> str:
        """The server's id, or a made-up one when it is missing or repeats an earlier call's."""
        call_id = slot.id if slot.id and slot.id not in self._ids else f"call_{n}_{len(self._ids)}"
        self._ids.add(call_id)
        return call_id

    def _call(self, slot: _PartialCall, call_id: str) -> ToolCall:
        arguments = "".join(slot.arguments)
        extra = {self._dialect: slot.extra} if slot.extra else {}
        return ToolCall(
            id=call_id, name=slot.name, arguments=arguments.strip() or "{}", extra=extra
        )

    def _tool_delta(self, call: dict[str, Any]) -> None:
        raw_index, raw_id = call.get("index"), call.get("id")
        index = raw_index if isinstance(raw_index, int) else None
        call_id = raw_id if isinstance(raw_id, str) else ""
        slot = self._slot(index, call_id)
        if slot.frozen:
            fn = call.get("function")
            if isinstance(fn, dict) and fn.get("arguments"):
                log.warning("more arguments for the complete tool call %s dropped", slot.name)
            return
        if call_id and not slot.id:
            slot.id = call_id
        for key, value in extras.unknown_fields(call, extras.CALL_FIELDS).items():
            extras.merge_into(slot.extra, key, value)
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
        self._seal_upto(len(self._calls))  # a new call begins: the earlier ones are complete
        slot = _PartialCall(index=index)
        self._calls.append(slot)
        return slot

    def finish(self) -> AssistantMessage:
        """The assembled message. `length` → `max_tokens`; tool calls → `tool_use`."""
        calls: list[ToolCall] = []
        for n, slot in enumerate(self._calls):
            call_id = self._final_id(slot, n) if slot.sealed is None else slot.sealed.id
            calls.append(slot.sealed if slot.frozen and slot.sealed else self._call(slot, call_id))
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
            thinking="".join(self._thinking) or None,
            extra={self._dialect: self._extra} if self._extra else {},
        )


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)

"""The OpenAI-compatible Chat Completions dialect: `{base}/chat/completions`, a Bearer key, the
body from `convert`, chunks assembled by `assemble`. Pure; the shared client does the I/O.
"""

from __future__ import annotations

import json

from ink_ls.core.config import ModelSettings, Provider
from ink_ls.core.messages import AssistantMessage
from ink_ls.model.assemble import StreamAssembler
from ink_ls.model.base import (
    ModelRequest,
    ReplyDone,
    StreamItem,
    TextDelta,
    ThinkingDelta,
    ToolCallReady,
)
from ink_ls.model.convert import request_body
from ink_ls.model.dialect import bearer_headers
from ink_ls.model.errors import ModelProtocolError, excerpt, stream_error
from ink_ls.model.sse import SSEDecoder, SSEEvent

CUT_OFF = (
    "the reply was cut off: the model endpoint closed the stream before the reply was "
    "complete (no finish_reason); the partial reply was discarded"
)


class ChatParser:
    """One Chat Completions stream: `data:` chunks until `[DONE]` (or, for servers that never
    send it, until the stream ends after the `finish_reason` chunk)."""

    cut_off = CUT_OFF

    def __init__(self, secret: str | None) -> None:
        self._secret = secret
        self._assembler = StreamAssembler(secret=secret)

    @property
    def finished(self) -> bool:
        """The `finish_reason` chunk arrived."""
        return self._assembler.finished

    def feed(self, event: SSEEvent) -> list[StreamItem]:
        """Items for one `data:` payload; `ReplyDone` at `[DONE]`."""
        data = event.data
        if event.event == "error":  # `event: error` or llama.cpp's `error:` line
            raise stream_error(data, self._secret, started=bool(self._assembler.text))
        if data.strip() == "[DONE]":
            return [ReplyDone(self._assembler.finish())]
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ModelProtocolError(
                "the model endpoint sent a stream item that is not JSON: "
                f"{excerpt(data, self._secret, 120)}"
            ) from None
        items: list[StreamItem] = []
        added = self._assembler.feed(chunk)
        thought = self._assembler.take_thinking()
        if thought:
            items.append(ThinkingDelta(thought))
        if added:
            items.append(TextDelta(added))
        items.extend(ToolCallReady(index, call) for index, call in self._assembler.take_ready())
        return items

    def end(self) -> AssistantMessage:
        """The reply after its `finish_reason`, when no `[DONE]` followed."""
        return self._assembler.finish()


class ChatDialect:
    """Chat Completions as OpenAI, Ollama, vLLM, llama.cpp, LM Studio… serve it."""

    @property
    def name(self) -> Provider:
        return "openai-chat"

    def url(self, base_url: str) -> str:
        return base_url + "/chat/completions"

    def headers(self, key: str | None) -> dict[str, str]:
        return bearer_headers(key)

    def body(self, request: ModelRequest, settings: ModelSettings) -> dict[str, object]:
        return request_body(request, settings)

    def decoder(self) -> SSEDecoder:
        return SSEDecoder()

    def parser(self, secret: str | None) -> ChatParser:
        return ChatParser(secret)

    def whole_reply(self, raw: bytes, secret: str | None) -> AssistantMessage:
        """A non-streamed JSON completion (servers that ignore `stream: true`)."""
        try:
            data = json.loads(raw)
            choice = data["choices"][0]
            delta = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ModelProtocolError(
                "the model endpoint sent a reply that is not a chat completion: "
                f"{excerpt(raw, secret)}"
            ) from None
        assembler = StreamAssembler(secret=secret)
        assembler.feed(
            {
                "choices": [{"delta": delta, "finish_reason": choice.get("finish_reason")}],
                "usage": data.get("usage"),
            }
        )
        return assembler.finish()

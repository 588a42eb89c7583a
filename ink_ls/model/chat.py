"""The OpenAI-compatible Chat Completions dialect: `{base}/chat/completions`, a Bearer key, the
body from `convert`, chunks assembled by `assemble`. Pure; the shared client does the I/O.
"""

from __future__ import annotations

import json

from ink_ls.core.config import ModelSettings, Provider
from ink_ls.core.messages import AssistantMessage
from ink_ls.model.assemble import StreamAssembler
from ink_ls.model.base import ModelRequest, ReplyDone, StreamItem, TextDelta, ToolCallReady
from ink_ls.model.convert import request_body
from ink_ls.model.errors import ModelProtocolError, excerpt
from ink_ls.model.sse import SSEEvent


class ChatParser:
    """One Chat Completions stream: `data:` chunks until `[DONE]`."""

    def __init__(self, secret: str | None) -> None:
        self._secret = secret
        self._assembler = StreamAssembler(secret=secret)

    def feed(self, event: SSEEvent) -> list[StreamItem]:
        """Items for one `data:` payload; `ReplyDone` at `[DONE]`."""
        data = event.data
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
        if added:
            items.append(TextDelta(added))
        items.extend(ToolCallReady(index, call) for index, call in self._assembler.take_ready())
        return items

    def end(self) -> AssistantMessage:
        """A stream without `[DONE]` is a cut reply."""
        raise ModelProtocolError(
            "the model stream ended before it was complete (no [DONE]); the reply was discarded"
        )


class ChatDialect:
    """Chat Completions as OpenAI, Ollama, vLLM, llama.cpp, LM Studio… serve it."""

    @property
    def name(self) -> Provider:
        return "openai-chat"

    def url(self, base_url: str) -> str:
        return base_url + "/chat/completions"

    def headers(self, key: str | None) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def body(self, request: ModelRequest, settings: ModelSettings) -> dict[str, object]:
        return request_body(request, settings)

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

"""Ollama's native chat as a dialect of the shared client: `{root}/api/chat`, one JSON object
per line, each translated (`ollama.LineTranslator`) into the Chat Completions chunk the
assembler joins. Used in place of Ollama's OpenAI layer when the user sets the window.
"""

from __future__ import annotations

import codecs
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
from ink_ls.model.chat import CUT_OFF, ChatDialect
from ink_ls.model.errors import ModelProtocolError, excerpt
from ink_ls.model.ollama import DIALECT, LineTranslator, chat_body
from ink_ls.model.sse import SSEEvent
from ink_ls.model.window import server_root


class LineDecoder:
    """A body of newline-separated JSON objects → one event per non-empty line."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """The lines `chunk` completed."""
        self._buffer += self._decoder.decode(chunk)
        *lines, self._buffer = self._buffer.split("\n")
        return [SSEEvent("message", line) for line in lines if line.strip()]

    def close(self) -> list[SSEEvent]:
        """A last line without its newline."""
        rest, self._buffer = self._buffer + self._decoder.decode(b"", final=True), ""
        return [SSEEvent("message", rest)] if rest.strip() else []


class OllamaParser:
    """One `/api/chat` stream; the line with `done: true` completes the reply."""

    cut_off = CUT_OFF
    finished = False
    """The `done` line is itself the end: there is no later marker to miss."""

    def __init__(self, secret: str | None) -> None:
        self._secret = secret
        self._assembler = StreamAssembler(secret=secret, dialect=DIALECT)
        self._lines = LineTranslator()

    def feed(self, event: SSEEvent) -> list[StreamItem]:
        """Items for one line; `ReplyDone` at the `done` line."""
        try:
            item = json.loads(event.data)
        except ValueError:
            line = excerpt(event.data, self._secret, 120)
            raise ModelProtocolError(
                f"Ollama sent a stream line that is not JSON: {line}"
            ) from None
        assembler = self._assembler
        added = assembler.feed(self._lines.chunk(item))
        out: list[StreamItem] = []
        thought = assembler.take_thinking()
        if thought:
            out.append(ThinkingDelta(thought))
        if added:
            out.append(TextDelta(added))
        out.extend(ToolCallReady(index, call) for index, call in assembler.take_ready())
        if assembler.finished:
            out.append(ReplyDone(assembler.finish()))
        return out

    def end(self) -> AssistantMessage:
        """Never called: a stream is `finished` only by its `done` line."""
        return self._assembler.finish()


class OllamaDialect:
    """Chat Completions' key handling; Ollama's own endpoint, body, framing and parsing."""

    @property
    def name(self) -> Provider:
        return "openai-chat"  # what the user chose; the messages' own fields say "ollama"

    def url(self, base_url: str) -> str:
        return server_root(base_url) + "/api/chat"

    def headers(self, key: str | None) -> dict[str, str]:
        return ChatDialect().headers(key)

    def body(self, request: ModelRequest, settings: ModelSettings) -> dict[str, object]:
        return chat_body(request, settings)

    def decoder(self) -> LineDecoder:
        return LineDecoder()

    def parser(self, secret: str | None) -> OllamaParser:
        return OllamaParser(secret)

    def whole_reply(self, raw: bytes, secret: str | None) -> AssistantMessage:
        """A reply sent as one JSON document (`stream` ignored): its single line."""
        parser = OllamaParser(secret)
        for item in parser.feed(SSEEvent("message", raw.decode("utf-8", "replace"))):
            if isinstance(item, ReplyDone):
                return item.message
        raise ModelProtocolError(
            f"Ollama sent a reply that is not complete: {excerpt(raw, secret)}"
        )

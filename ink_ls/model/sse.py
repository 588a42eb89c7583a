"""An incremental Server-Sent Events decoder: bytes in, `(event, data)` records out.

Pure and synchronous so it can be tested byte by byte; knows nothing about HTTP or JSON.
Follows the WHATWG event-stream rules that matter for chat completions: any line ending,
multi-line `data`, comments, and UTF-8 split across chunks; and one dialect: llama.cpp's
`error: {…}` line becomes an event named `error`, like `event: error`.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class SSEEvent:
    event: str
    """The `event:` field, `"message"` when absent."""
    data: str


class SSEDecoder:
    """Feed raw body chunks with `feed`; call `close` at end of stream for a trailing event."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._data: list[str] = []
        self._event = ""
        self._pending_cr = False

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Decode `chunk` and return the events it completed."""
        return self._consume(self._decoder.decode(chunk))

    def close(self) -> list[SSEEvent]:
        """End of stream: dispatch a last event that lacked its blank line (lenient)."""
        events = self._consume(self._decoder.decode(b"", final=True))
        if self._buffer:
            self._line(self._buffer, events)
            self._buffer = ""
        self._dispatch(events)
        return events

    def _consume(self, text: str) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        if not text:  # e.g. half a UTF-8 character: keep every state as it is
            return events
        if self._pending_cr and text[0] == "\n":
            text = text[1:]  # the \n of a \r\n split across chunks
        self._pending_cr = False
        if not text:
            return events
        buf = self._buffer + text
        self._pending_cr = buf.endswith("\r")
        # most servers end lines with \n alone: str.split is several times faster than the regex
        lines = _LINE_END.split(buf) if "\r" in buf else buf.split("\n")
        self._buffer = lines.pop()  # the unterminated rest ("" after a line end)
        for line in lines:
            self._line(line, events)
        return events

    def _line(self, line: str, events: list[SSEEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line.startswith(":"):
            return  # comment / keep-alive
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "error":  # llama.cpp's server reports a failure as an `error:` line
            self._data.append(value)
            self._event = "error"
        # id, retry and other fields do not matter for chat completions

    def _dispatch(self, events: list[SSEEvent]) -> None:
        if self._data:
            events.append(SSEEvent(self._event or "message", "\n".join(self._data)))
        self._data = []
        self._event = ""

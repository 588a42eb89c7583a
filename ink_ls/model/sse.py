"""An incremental Server-Sent Events decoder: bytes in, `(event, data)` records out.

Pure and synchronous so it can be tested byte by byte; knows nothing about HTTP or JSON.
Follows the WHATWG event-stream rules that matter for chat completions: any line ending,
multi-line `data`, comments, and UTF-8 split across chunks.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


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
        if self._pending_cr and text.startswith("\n"):
            text = text[1:]  # the \n of a \r\n split across chunks
        self._pending_cr = False
        buf = self._buffer + text
        start = 0
        n = len(buf)
        i = 0
        while i < n:
            ch = buf[i]
            if ch == "\r" or ch == "\n":
                self._line(buf[start:i], events)
                if ch == "\r":
                    if i + 1 < n and buf[i + 1] == "\n":
                        i += 1
                    elif i + 1 == n:
                        self._pending_cr = True
                start = i + 1
            i += 1
        self._buffer = buf[start:]
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
        # id, retry and unknown fields do not matter for chat completions

    def _dispatch(self, events: list[SSEEvent]) -> None:
        if self._data:
            events.append(SSEEvent(self._event or "message", "\n".join(self._data)))
        self._data = []
        self._event = ""

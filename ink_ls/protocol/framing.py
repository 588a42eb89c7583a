"""The LSP base protocol on a byte stream, strictly: frames in, JSON-RPC 2.0 messages checked.

`FrameReader` cuts `Content-Length: N\\r\\n…\\r\\n\\r\\n<N bytes>` frames out of a stream and never
goes deaf on a bad one: a header without a usable `Content-Length` (missing, not a number) is
reported and skipped; bytes that are not a header (the rest of a body whose length was given
too small, a body sent without header) are skipped up to the next `Content-Length:`; a body
that stops arriving (a length given too large) is given up after `stall` seconds and the
bytes received are searched for the next header. `decode` turns a body into a message or a
JSON-RPC error (-32700 parse error: not UTF-8, not JSON, nested too deeply; -32600 invalid
request: a batch, not an object, no `"jsonrpc": "2.0"`, an id or method of the wrong type, a
response without a result or an error).
Error messages are plain sentences, never Python exception text. No pygls here.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
MAX_DEPTH = 128
"""Deepest nesting of objects and arrays a message may have (LSP messages need ~10)."""
MAX_BODY = 256 * 1024 * 1024
STALL_SECONDS = 5.0

_HEADER_START = re.compile(rb"[A-Za-z][A-Za-z0-9-]*:")
_CONTENT_LENGTH = re.compile(rb"content-length:", re.IGNORECASE)
_SEP = b"\r\n\r\n"
JUNK = "bytes outside a message were skipped (no Content-Length header before them)"


@dataclass(frozen=True)
class FrameError:
    """A frame that could not be read; `reason` is a sentence for the log and the client."""

    reason: str


@dataclass(frozen=True)
class WireError:
    """A message answered with an error instead of being handled."""

    code: int
    message: str
    id: int | str | None = None


Chunk = Callable[[], Awaitable[bytes]]
"""Reads the next bytes available (at least one); b"" at end of stream."""


class FrameReader:
    """Frames from `read_chunk`: `await next()` → a body, a `FrameError`, or None at EOF."""

    def __init__(self, read_chunk: Chunk, *, stall: float = STALL_SECONDS) -> None:
        self._read_chunk = read_chunk
        self._stall = stall
        self._buf = bytearray()
        self._eof = False
        self._pending: asyncio.Future[bytes] | None = None
        self._after_error = False

    async def _more(self, timeout: float | None = None) -> bool:
        """Append the next chunk; False at EOF or when `timeout` passed without data."""
        if self._eof:
            return False
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._read_chunk())
        done, _ = await asyncio.wait({self._pending}, timeout=timeout)
        if not done:
            return False  # the read stays pending: its bytes are not lost
        chunk, self._pending = self._pending.result(), None
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    async def next(self) -> bytes | FrameError | None:
        while True:
            error = self._skip_junk()
            if error is not None:
                return error
            end = self._buf.find(_SEP)
            if end < 0:
                if not await self._more():
                    return None
                continue
            header = bytes(self._buf[:end])
            found = _CONTENT_LENGTH.search(header)
            if found and found.start() > 0 and header[found.start() - 2 : found.start()] != b"\r\n":
                # a header glued to the end of junk (the rest of a body cut too short)
                del self._buf[: found.start()]
                if not self._after_error:
                    return self._error(JUNK)
                continue
            start = end + len(_SEP)
            length, problem = _content_length(header)
            if problem is not None:
                del self._buf[:start]
                return self._error(problem)
            assert length is not None
            while len(self._buf) < start + length:
                if not await self._more(timeout=self._stall):
                    got = len(self._buf) - start
                    del self._buf[:start]  # what came is searched for the next header
                    if self._eof and not got:
                        return None
                    return self._error(
                        f"incomplete message: Content-Length is {length} but only {got} "
                        "bytes arrived"
                    )
            body = bytes(self._buf[start : start + length])
            del self._buf[: start + length]
            self._after_error = False
            return body

    def _error(self, reason: str) -> FrameError:
        self._after_error = True
        return FrameError(reason)

    def _skip_junk(self) -> FrameError | None:
        """Drop bytes before the next header; an error unless they follow a reported one."""
        buf = self._buf
        while buf[:2] == b"\r\n":  # stray blank lines between frames are harmless
            del buf[:2]
        if not buf or _HEADER_START.match(buf) or (len(buf) < 16 and b":" not in buf):
            return None
        found = _CONTENT_LENGTH.search(buf)
        cut = found.start() if found else max(len(buf) - 15, 0)  # keep a split header's start
        if cut == 0:
            return None
        del buf[:cut]
        if self._after_error:
            return None
        return self._error(JUNK)


def _content_length(header: bytes) -> tuple[int | None, str | None]:
    length: int | None = None
    for line in header.split(b"\r\n"):
        name, sep, value = line.partition(b":")
        if not sep:
            return None, "malformed header line (expected 'Name: value')"
        if name.strip().lower() == b"content-length":
            text = value.strip()
            if not text.isdigit():
                return None, "the Content-Length header is not a number"
            length = int(text)
    if length is None:
        return None, "the message has no Content-Length header"
    if length > MAX_BODY:
        return None, f"Content-Length {length} is over the limit of {MAX_BODY} bytes"
    return length, None


def _too_deep(value: Any) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, dict | list))
    return False


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def decode(body: bytes) -> dict[str, Any] | WireError:
    """The JSON-RPC message in `body`, or the error to answer it with."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return WireError(PARSE_ERROR, "parse error: the message is not valid UTF-8")
    try:
        data = json.loads(text)
    except RecursionError:
        return WireError(PARSE_ERROR, f"parse error: nested deeper than {MAX_DEPTH} levels")
    except json.JSONDecodeError as exc:
        return WireError(
            PARSE_ERROR,
            f"parse error: the message is not valid JSON (line {exc.lineno}, column {exc.colno})",
        )
    if _too_deep(data):
        return WireError(PARSE_ERROR, f"parse error: nested deeper than {MAX_DEPTH} levels")
    if isinstance(data, list):
        return WireError(
            INVALID_REQUEST,
            "invalid request: batches (JSON arrays) are not supported; send one message per frame",
        )
    if not isinstance(data, dict):
        return WireError(INVALID_REQUEST, "invalid request: a message must be a JSON object")
    msg_id = data.get("id")
    answer_to = msg_id if _valid_id(msg_id) else None
    if data.get("jsonrpc") != "2.0":
        return WireError(INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"', answer_to)
    if "id" in data and not _valid_id(msg_id) and not (msg_id is None and "method" not in data):
        return WireError(INVALID_REQUEST, "invalid request: id must be an integer or a string")
    if "method" in data and not isinstance(data["method"], str):
        return WireError(INVALID_REQUEST, "invalid request: method must be a string", answer_to)
    if "method" not in data and "id" not in data:
        return WireError(INVALID_REQUEST, "invalid request: a message needs a method or an id")
    if "method" in data and ("result" in data or "error" in data):
        return WireError(
            INVALID_REQUEST,
            "invalid request: a request cannot carry a result or an error",
            answer_to,
        )
    if "method" not in data and "result" not in data and "error" not in data:
        return WireError(
            INVALID_REQUEST, "invalid request: a response needs a result or an error", answer_to
        )
    return data

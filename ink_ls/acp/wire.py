"""The ACP connection's line reader: newline-delimited JSON-RPC on stdio, checked before the SDK
sees it.

The SDK's own reader skips a line it cannot parse without answering and takes a `null` line
for the end of the stream. `LineTransport` (an SDK `Transport`) answers instead: not JSON →
-32700, not a JSON-RPC message (a non-object, a batch, a wrong id or method type) → -32600,
a line over `MAX_LINE` bytes → -32600 (the line is dropped without being held in memory),
and keeps serving. The checks are the language server's (`protocol.framing.decode`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from ink_ls.protocol.framing import INVALID_REQUEST, WireError, decode

log = logging.getLogger(__name__)

MAX_LINE = 50 * 1024 * 1024
"""Largest message line accepted (the SDK's default buffer; room for images in prompts)."""


class _TooLong:
    """A line that went over the limit and was dropped."""

    def __init__(self, size: int) -> None:
        self.size = size


class LineTransport:
    """Reads messages from `reader`, writes them to `writer`; the SDK's `Transport` protocol."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        max_line: int = MAX_LINE,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._max_line = max_line
        self._lock = asyncio.Lock()
        self._closed = False
        self.answered_errors = 0
        """Malformed lines answered with an error (for tests and the fuzz bench)."""

    async def send(self, message: dict[str, Any]) -> None:
        """Write one message as one line (serialised: lines never interleave)."""
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")
        async with self._lock:
            if self._closed:
                raise ConnectionError("the connection is closed")
            self._writer.write(data)
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        """The next valid message; None at the end of the stream. Bad lines are answered."""
        while True:
            line = await self._read_line()
            if line is None:
                return None
            if isinstance(line, _TooLong):
                limit = f"{self._max_line // (1024 * 1024)} MiB"
                await self._refuse(
                    WireError(
                        INVALID_REQUEST,
                        f"invalid request: a message of over {limit} ({line.size} bytes read "
                        "before it was dropped); send smaller messages",
                    )
                )
                continue
            if not line.strip():
                continue
            checked = decode(line.strip())
            if isinstance(checked, WireError) and "per frame" in checked.message:
                checked = WireError(checked.code, checked.message.replace("frame", "line"))
            if isinstance(checked, WireError):
                await self._refuse(checked)
                continue
            return checked

    async def close(self) -> None:
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            self._writer.close()

    async def _refuse(self, error: WireError) -> None:
        log.warning("ACP: refused a message: %s", error.message)
        self.answered_errors += 1
        answer = {
            "jsonrpc": "2.0",
            "id": error.id,
            "error": {"code": error.code, "message": error.message},
        }
        try:
            await self.send(answer)
        except (ConnectionError, OSError) as exc:  # the client is gone; EOF follows
            log.info("ACP: could not answer a malformed message: %s", exc)

    async def _read_line(self) -> bytes | _TooLong | None:
        try:
            return await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial or None  # a last line without its newline, or the end
        except asyncio.LimitOverrunError as exc:
            dropped = await self._discard_line(exc.consumed)
            return _TooLong(dropped)

    async def _discard_line(self, consumed: int) -> int:
        """Drop the rest of an overlong line (up to its newline or the end of the stream)."""
        dropped = 0
        while True:
            dropped += len(await self._reader.readexactly(consumed)) if consumed else 0
            try:
                dropped += len(await self._reader.readuntil(b"\n"))
                return dropped
            except asyncio.IncompleteReadError as exc:
                return dropped + len(exc.partial)
            except asyncio.LimitOverrunError as exc:
                consumed = exc.consumed

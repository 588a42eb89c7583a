"""Head truncation for tool output: whole lines, capped in lines and UTF-8 bytes, with exact notes.

`scan_window` reads a line window out of a binary stream in 1 MiB chunks, so memory is bounded
by the window returned, never by the file. Nothing here formats a tool's result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import BinaryIO, Literal

MAX_LINES = 2000
MAX_BYTES = 50 * 1024
CHUNK = 1 << 20

CutBy = Literal["lines", "bytes"]


class ScanCancelledError(Exception):
    """The caller's cancel check said stop between two chunks."""


def cut_utf8(data: bytes, limit: int) -> bytes:
    """The longest prefix of `data` of at most `limit` bytes that ends on a character boundary."""
    if len(data) <= limit:
        return data
    end = limit
    # Step back over continuation bytes (10xxxxxx) so no character is split.
    while end > 0 and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end]


def shorten_line(text: str, max_chars: int) -> str:
    """`text` cut to `max_chars` characters with a visible marker when it was longer."""
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + f"... [line cut at {max_chars} characters]"


def format_size(n: int) -> str:
    """A byte count for people: `512B`, `50KB`, `78.1KB`, `1.5MB`, to the nearest tenth.

    Only an exact size prints as a whole number: a size next to it steps one tenth off, so a
    51,201-byte line never reads as the 50KB limit it exceeds (`50.1KB`, not `50.0KB`).
    """
    if n < 1024:
        return f"{n}B"
    unit, scale = ("KB", 1024) if n < 1024 * 1024 else ("MB", 1024 * 1024)
    tenths = (n * 10 + scale // 2) // scale
    if tenths % 10 == 0 and n * 10 != tenths * scale:
        tenths += 1 if n * 10 > tenths * scale else -1
    whole, tenth = divmod(tenths, 10)
    return f"{whole}{unit}" if tenth == 0 else f"{whole}.{tenth}{unit}"


@dataclass
class HeadCut:
    """The first lines of a sequence that fit; `cut_by` says which limit stopped it, if any."""

    lines: list[str] = field(default_factory=list)
    cut_by: CutBy | None = None
    consumed: int = 0

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def head_lines(lines: Iterable[str], *, max_lines: int, max_bytes: int = MAX_BYTES) -> HeadCut:
    """Take whole lines from `lines` while at most `max_lines` and `max_bytes` (UTF-8, counting
    the joining newlines). Stops consuming `lines` at the first line that does not fit."""
    out = HeadCut()
    size = 0
    for line in lines:
        if len(out.lines) >= max_lines:
            out.cut_by = "lines"
            break
        add = len(line.encode("utf-8")) + (1 if out.lines else 0)
        if size + add > max_bytes:
            out.cut_by = "bytes"
            break
        out.lines.append(line)
        size += add
        out.consumed += 1
    return out


@dataclass
class Window:
    """A line window of a stream. Line numbers are 1-based; `total` counts every line."""

    data: bytes = b""
    first: int = 1
    count: int = 0
    total: int = 0
    cut_by: CutBy | None = None
    long_line: int | None = None
    """Set when the first line of the window alone is over the byte budget: its size."""

    @property
    def last(self) -> int:
        return self.first + self.count - 1


def scan_window(
    fh: BinaryIO,
    *,
    offset: int,
    max_lines: int,
    max_bytes: int = MAX_BYTES,
    cancelled: Callable[[], bool] = lambda: False,
) -> Window:
    """Lines `offset`.. of `fh`, at most `max_lines` lines and `max_bytes` bytes (newlines
    included), whole lines only, and the stream's total line count.

    Skipping and counting use `bytes.count` per 1 MiB chunk and never decode. A first line over
    the budget is not kept: `long_line` gets its size and the scan stops there (no total).
    """
    newlines = 0  # every b"\n" seen so far, wherever it was
    skip = offset - 1
    state = "skip" if skip > 0 else "take"
    kept = bytearray()
    count = 0
    part = bytearray()  # the line being taken, possibly spanning chunks
    part_len = 0
    long_len = 0
    cut_by: CutBy | None = None
    last_byte = b""
    seen = 0
    while True:
        if cancelled():
            raise ScanCancelledError
        chunk = fh.read(CHUNK)
        if not chunk:
            break
        seen += len(chunk)
        last_byte = chunk[-1:]
        pos = 0
        if state == "skip":
            c = chunk.count(b"\n")
            need = skip - newlines
            if c < need:
                newlines += c
                continue
            for _ in range(need):
                pos = chunk.index(b"\n", pos) + 1
            newlines += need
            state = "take"
        if state == "take":
            while pos < len(chunk):
                nl = chunk.find(b"\n", pos)
                end = len(chunk) if nl < 0 else nl + 1
                part_len += end - pos
                if len(kept) + part_len > max_bytes:
                    if count == 0:
                        # Its size without the newline; keep scanning only to measure it.
                        state = "done" if nl >= 0 else "long"
                        long_len = part_len - (1 if nl >= 0 else 0)
                        pos = len(chunk)
                    else:
                        cut_by, state = "bytes", "count"
                    break
                part += chunk[pos:end]
                pos = end
                if nl < 0:
                    break
                newlines += 1
                kept += part
                count += 1
                part.clear()
                part_len = 0
                if count >= max_lines:
                    state = "count"
                    break
        elif state == "long":
            nl = chunk.find(b"\n")
            long_len += nl if nl >= 0 else len(chunk)
            if nl >= 0:
                state = "done"
        if state == "count":
            newlines += chunk.count(b"\n", pos)
        if state == "done":
            break
    if state in ("long", "done"):
        return Window(first=offset, long_line=long_len)
    if state == "take" and part:
        # The last line of the stream has no newline; it was already checked against the budget.
        kept += part
        count += 1
    if state == "count" and cut_by is None and count >= max_lines:
        cut_by = "lines"
    total = newlines + (1 if seen and last_byte != b"\n" else 0)
    if cut_by == "lines" and total == offset - 1 + count:
        cut_by = None  # exactly max_lines left: nothing was cut
    return Window(data=bytes(kept), first=offset, count=count, total=total, cut_by=cut_by)

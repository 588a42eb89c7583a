"""The editor's open documents, kept in step with didOpen/didChange/didClose: a `FileView`.

Positions are counted in the negotiated encoding (utf-8, utf-16 or utf-32 code units).
It never reads or writes the disk.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlparse

_EOL = re.compile(r"\r\n|\r|\n")


def uri_to_path(uri: str) -> Path | None:
    """The file path of a `file:` URI, or None for other schemes."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def path_to_uri(path: Path) -> str:
    """A `file:` URI for an absolute path."""
    return "file://" + quote(str(path), safe="/:")


def _key(path: Path) -> str:
    return os.path.realpath(path)


def _units(ch: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(ch.encode("utf-8"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(ch) > 0xFFFF else 1


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in _EOL.finditer(text)]


def offset_at(text: str, line: int, character: int, encoding: str) -> int:
    """The string index of an LSP position (clamped to the line's end and the text's end)."""
    starts = _line_starts(text)
    if line >= len(starts):
        return len(text)
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    content_end = start + len(text[start:end].rstrip("\r\n"))
    units = 0
    i = start
    while i < content_end and units < character:
        units += _units(text[i], encoding)
        i += 1
    return i


def end_position(text: str, encoding: str) -> tuple[int, int]:
    """The LSP position (line, character) of the end of `text`."""
    starts = _line_starts(text)
    last = text[starts[-1] :]
    return len(starts) - 1, sum(_units(ch, encoding) for ch in last)


@dataclass
class OpenDocument:
    uri: str
    path: Path
    text: str
    version: int | None


class OpenDocuments:
    """Open buffers by real path; `open_document(path)` serves tools (unsaved changes included)."""

    def __init__(self, encoding: str = "utf-16") -> None:
        self.encoding = encoding
        self._docs: dict[str, OpenDocument] = {}

    def did_open(self, uri: str, text: str, version: int | None) -> None:
        path = uri_to_path(uri)
        if path is not None:
            self._docs[_key(path)] = OpenDocument(uri, path, text, version)

    def did_change(self, uri: str, version: int | None, changes: list[dict[str, Any]]) -> None:
        """Apply full (`{text}`) or incremental (`{range, text}`) changes in order."""
        path = uri_to_path(uri)
        doc = self._docs.get(_key(path)) if path is not None else None
        if doc is None:
            return
        text = doc.text
        for change in changes:
            new = str(change.get("text", ""))
            rng = change.get("range")
            if rng is None:
                text = new
                continue
            start = offset_at(text, rng["start"]["line"], rng["start"]["character"], self.encoding)
            end = offset_at(text, rng["end"]["line"], rng["end"]["character"], self.encoding)
            text = text[:start] + new + text[max(start, end) :]
        doc.text = text
        doc.version = version

    def did_close(self, uri: str) -> None:
        path = uri_to_path(uri)
        if path is not None:
            self._docs.pop(_key(path), None)

    def get(self, path: Path) -> OpenDocument | None:
        """The open document at `path` (symlinks resolved), if any."""
        return self._docs.get(_key(path))

    def open_document(self, path: Path) -> str | None:
        """`FileView`: the buffer text when the file is open, else None (read the disk)."""
        doc = self.get(path)
        return doc.text if doc is not None else None

    def text_in_range(self, text: str, rng: dict[str, Any]) -> str:
        """The text an LSP range covers in `text`, in this server's position encoding."""
        start = offset_at(text, rng["start"]["line"], rng["start"]["character"], self.encoding)
        end = offset_at(text, rng["end"]["line"], rng["end"]["character"], self.encoding)
        return text[start:end]

"""Reading a file for a change (edit, write): the editor buffer if open, else the disk, with
its BOM and dominant line ending noted so they can be written back. No writing here.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from ink_ls.core.tool import FileView, document_text

BOM = "\ufeff"


class TextFileError(Exception):
    """The file cannot be read as text; the message is a full sentence for the model."""


@dataclass(frozen=True)
class TextFile:
    """A file's text as found (`raw`), and its LF-normalised body without BOM."""

    raw: str
    body: str
    bom: bool
    crlf: bool

    def render(self, body: str) -> str:
        """`body` (LF line endings) written back with this file's BOM and line endings."""
        text = body.replace("\n", "\r\n") if self.crlf else body
        return (BOM + text) if self.bom else text


def decode(raw: str) -> TextFile:
    """Split `raw` into BOM, dominant line ending and LF-normalised body."""
    bom = raw.startswith(BOM)
    text = raw[1:] if bom else raw
    crlf_count = text.count("\r\n")
    lf_count = text.count("\n") - crlf_count
    return TextFile(raw=raw, body=text.replace("\r\n", "\n"), bom=bom, crlf=crlf_count > lf_count)


async def load(path: Path, shown: str, files: FileView) -> TextFile | None:
    """The text of `path` (buffer first), or `None` if it does not exist. Raises
    `TextFileError` for a directory, a binary or non-UTF-8 file, or an unreadable one.

    The file view is asked on the event loop (editor state is not thread-safe); only the disk
    read runs in a worker thread."""
    buffer = await document_text(files, path)
    if buffer is not None:
        return decode(buffer)
    return await asyncio.to_thread(_load_disk, path, shown)


def _load_disk(path: Path, shown: str) -> TextFile | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise TextFileError(f"Error: {shown} is a directory, not a file.") from exc
    except OSError as exc:
        raise TextFileError(f"Error reading {shown}: {exc.strerror or exc}") from exc
    if b"\x00" in data[:8192]:
        raise TextFileError(
            f"Error: {shown} looks like a binary file; only text files can be changed."
        )
    try:
        return decode(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TextFileError(
            f"Error: {shown} is not valid UTF-8 (byte {exc.start}); only UTF-8 text files can "
            "be changed."
        ) from exc


def count_lines(text: str) -> int:
    """Lines as an editor shows them: a final newline does not start another line."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)

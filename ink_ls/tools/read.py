"""The read tool: a window of a text file (or an editor buffer), or an image as an image block.

Memory is bounded by the window returned: the disk is scanned in 1 MiB chunks in a worker
thread that checks the cancel signal between chunks. It never writes anything.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from ink_ls.core.messages import ImageBlock, TextBlock
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import (
    Access,
    Tool,
    ToolContext,
    ToolParams,
    ToolResult,
    aborted_result,
    document_text,
    shown_path,
    text_arg,
)
from ink_ls.tools._image import ImageFitError, detect_mime, fit_image
from ink_ls.tools._paths import shell_quote
from ink_ls.tools._spellings import at_located, located_real
from ink_ls.tools._truncate import (
    MAX_BYTES,
    MAX_LINES,
    ScanCancelledError,
    Window,
    format_size,
    scan_window,
)

_BINARY_SNIFF = 8 * 1024
_MAX_IMAGE_FILE = 64 * 1024 * 1024


def _positive_message(name: str, value: object) -> str:
    shown = json.dumps(value) if isinstance(value, (int, float, str, bool)) else repr(value)
    hint = " (1-indexed)" if name == "offset" else ""
    return f"{name} must be a positive integer{hint}, got {shown}"


class ReadParams(ToolParams):
    path: str = Field(
        description="Path of the file to read, relative to the workspace root or absolute."
    )
    offset: int | None = Field(
        default=None,
        ge=1,
        description="Line number to start reading from (1-indexed). Use it to continue a cut read.",
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        description=f"Maximum number of lines to read (at most {MAX_LINES} are returned per call).",
    )

    @field_validator("offset", "limit", mode="before")
    @classmethod
    def _positive_integer(cls, value: object, info: ValidationInfo) -> object:
        # Strict on purpose: "2", 1.5, true, 0 and -1 are refused before any I/O.
        if value is None or (type(value) is int and value > 0):
            return value
        message = _positive_message(str(info.field_name), value)
        raise PydanticCustomError("positive_integer", "{message}", {"message": message})


@dataclass
class _Text:
    window: Window


@dataclass
class _Failure:
    message: str


@dataclass
class _Image:
    data: bytes
    mime_type: str


class ReadTool(Tool[ReadParams]):
    """Reads text (whole lines, capped) or images; see the description for the limits."""

    name = "read"
    description = (
        "Read a text file, or attach an image (PNG, JPEG, GIF, WebP, detected from its bytes). "
        f"Text output is cut at {MAX_LINES} lines or {MAX_BYTES // 1024}KB (whole lines), "
        "whichever comes first; the note at the end says which lines were shown and which "
        "offset to use to continue. Use offset and limit to read a part of a large file. "
        "Files open in the editor are read with their unsaved changes. "
        "Images are scaled to fit 2000x2000 pixels."
    )
    params_model = ReadParams
    concurrency_safe = True
    kind = "read"

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        return f"read {shown_path(text_arg(args, 'path'), cwd)}".rstrip()

    def access(self, args: ReadParams, cwd: Path) -> Access:
        return Access(reads=frozenset({located_real(args.path, cwd)}))

    async def execute(
        self, args: ReadParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        for name, value in (("offset", args.offset), ("limit", args.limit)):
            if value is not None and (type(value) is not int or value < 1):
                return ToolResult(f"Error: {_positive_message(name, value)}", is_error=True)
        if not args.path.strip():
            return ToolResult(
                "Error: path is empty; give the file to read, relative to the workspace root "
                "or absolute.",
                is_error=True,
            )
        return await at_located(
            args.path, context, lambda path: self._read(args, path, signal, context), buffers=True
        )

    async def _read(
        self, args: ReadParams, path: Path, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        offset = args.offset or 1
        max_lines = min(args.limit, MAX_LINES) if args.limit is not None else MAX_LINES
        stop = threading.Event()
        unsubscribe = signal.subscribe(stop.set)
        try:
            buffer = await document_text(context.files, path)
            outcome: _Text | _Image | _Failure
            if buffer is not None:
                source: BinaryIO = io.BytesIO(buffer.encode("utf-8", "replace"))
                outcome = await asyncio.to_thread(
                    _scan, source, offset=offset, max_lines=max_lines, stop=stop
                )
            else:
                outcome = await asyncio.to_thread(
                    _read_disk, path, args.path, offset=offset, max_lines=max_lines, stop=stop
                )
            if isinstance(outcome, _Image):
                return await asyncio.to_thread(_image_result, outcome)
        except ScanCancelledError:
            return aborted_result(self.name)
        finally:
            unsubscribe()
            stop.set()  # if this task itself was cancelled, the worker thread stops too
        if isinstance(outcome, _Failure):
            return ToolResult(outcome.message, is_error=True)
        return _text_result(outcome.window, path, offset=offset, limit=args.limit)


def _scan(source: BinaryIO, *, offset: int, max_lines: int, stop: threading.Event) -> _Text:
    return _Text(scan_window(source, offset=offset, max_lines=max_lines, cancelled=stop.is_set))


def _read_disk(
    path: Path, shown: str, *, offset: int, max_lines: int, stop: threading.Event
) -> _Text | _Image | _Failure:
    try:
        mode = os.stat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            # A FIFO would block the open forever, a device could stream without end.
            return _Failure(
                f"Error: {shown} is not a regular file (a pipe, socket or device); "
                "the read tool only reads files."
            )
        with open(path, "rb") as fh:
            head = fh.read(_BINARY_SNIFF)
            mime = detect_mime(head)
            if mime is not None:
                size = fh.seek(0, io.SEEK_END)
                if size > _MAX_IMAGE_FILE:
                    return _Failure(
                        f"Error: {shown} is a {mime} image of {format_size(size)}, over the "
                        f"{format_size(_MAX_IMAGE_FILE)} the read tool can process."
                    )
                fh.seek(0)
                return _Image(fh.read(), mime)
            if b"\x00" in head:
                return _Failure(
                    f"Error: {shown} looks like a binary file; the read tool only supports text."
                )
            fh.seek(0)
            return _scan(fh, offset=offset, max_lines=max_lines, stop=stop)
    except IsADirectoryError:
        return _Failure(f"Error reading {shown}: Is a directory (use the ls tool to list it)")
    except OSError as exc:
        return _Failure(f"Error reading {shown}: {exc.strerror or exc}")


def _image_result(image: _Image) -> ToolResult:
    try:
        fitted = fit_image(image.data, image.mime_type)
    except ImageFitError as exc:
        note = f"Read image file [{image.mime_type}], but the image is not attached: {exc}."
        return ToolResult(note)
    note = f"Read image file [{fitted.mime_type}]"
    if (fitted.width, fitted.height) != (fitted.original_width, fitted.original_height):
        note += (
            f" (original {fitted.original_width}x{fitted.original_height}, "
            f"shown at {fitted.width}x{fitted.height})"
        )
    return ToolResult(
        note,
        content=[TextBlock(text=note), ImageBlock(data=fitted.data, mime_type=fitted.mime_type)],
    )


def _text_result(window: Window, path: Path, *, offset: int, limit: int | None) -> ToolResult:
    if window.long_line is not None:
        return ToolResult(
            f"[Line {offset} is {format_size(window.long_line)}, over the "
            f"{MAX_BYTES // 1024}KB limit, so it is not shown. To see its first "
            f"{MAX_BYTES // 1024}KB, run in bash: "
            f"sed -n '{offset}p' {shell_quote(path)} | head -c {MAX_BYTES}]"
        )
    if window.count == 0:
        if window.total == 0 and offset == 1:
            return ToolResult("(empty file)")
        return ToolResult(
            f"Error: offset {offset} is beyond the end of the file ({window.total} lines total)",
            is_error=True,
        )
    text = window.data.decode("utf-8", "replace").replace("\r\n", "\n")
    if offset == 1:
        text = text.removeprefix("\ufeff")
    text = text.removesuffix("\n")
    first, last, total = window.first, window.last, window.total
    note = ""
    if window.cut_by == "bytes":
        note = (
            f"[Showing lines {first}-{last} of {total} ({MAX_BYTES // 1024}KB limit). "
            f"Use offset={last + 1} to continue.]"
        )
    elif window.cut_by == "lines" and limit is not None and limit <= MAX_LINES:
        note = f"[{total - last} more lines in file. Use offset={last + 1} to continue.]"
    elif window.cut_by == "lines":
        note = (
            f"[Showing lines {first}-{last} of {total} ({MAX_LINES} line limit). "
            f"Use offset={last + 1} to continue.]"
        )
    return ToolResult(f"{text}\n\n{note}" if note else text)

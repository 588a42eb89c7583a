"""The write tool: create or overwrite one file with the given content.

Writes only through the context's writer (which creates parent directories and may ask the
editor for approval), under the file's lock. It never writes the disk itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from ink_ls.core.signal import CancelledError, CancelSignal
from ink_ls.core.tool import (
    Access,
    Tool,
    ToolContext,
    ToolParams,
    ToolResult,
    aborted_result,
    shown_path,
    text_arg,
)
from ink_ls.tools._change import diff_display, write_change
from ink_ls.tools._locks import file_lock
from ink_ls.tools._spellings import at_located, located_real
from ink_ls.tools._textfile import TextFileError, count_lines, load


class WriteParams(ToolParams):
    path: str = Field(
        description="Path of the file to write, relative to the workspace root or absolute. "
        "Missing parent directories are created."
    )
    content: str = Field(description="The complete new content of the file.")


class WriteTool(Tool[WriteParams]):
    """Creates or replaces a whole file through the context's writer."""

    name = "write"
    description = (
        "Write a file: create it (with any missing parent directories) or overwrite it "
        "entirely with content. Prefer edit for changing part of an existing file."
    )
    params_model = WriteParams
    kind = "edit"

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        return f"write {shown_path(text_arg(args, 'path'), cwd)}".rstrip()

    def access(self, args: WriteParams, cwd: Path) -> Access:
        return Access(writes=frozenset({located_real(args.path, cwd, new_file=True)}))

    async def execute(
        self, args: WriteParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        shown = args.path
        if not shown.strip():
            return ToolResult("Error: path is empty; give the file to write.", is_error=True)
        return await at_located(
            shown,
            context,
            lambda path: self._write(args, path, signal, context),
            new_file=True,
            buffers=True,
        )

    async def _write(
        self, args: WriteParams, path: Path, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        shown = args.path
        try:
            async with file_lock(path, signal):
                try:
                    old = await load(path, shown, context.files)
                except TextFileError as exc:
                    if path.is_dir():
                        return ToolResult(str(exc), is_error=True)
                    old = None  # a binary or non-UTF-8 file may still be overwritten
                    existed = True
                else:
                    existed = old is not None
                old_text = old.raw if old is not None else None
                landed = await write_change(
                    context,
                    path,
                    args.content,
                    old_text=old_text,
                    shown=shown,
                    tool_name=self.name,
                    signal=signal,
                )
                if isinstance(landed, ToolResult):
                    return landed
        except CancelledError:
            return aborted_result(self.name, "the file was not changed")
        verb = "Overwrote" if existed else "Created"
        size = len(landed.text.encode("utf-8"))
        return ToolResult(
            # The contract's exact shape, `(<lines> lines, <bytes> bytes)`, also for 1.
            f"{verb} {shown} ({count_lines(landed.text)} lines, {size} bytes){landed.note}",
            display=diff_display(path, old_text or "", landed.text),
        )

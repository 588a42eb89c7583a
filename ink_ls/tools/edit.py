"""The edit tool: exact-text replacements in one file, all or nothing, encoding kept.

Reads through the file view (open buffer first) and writes only through the context's writer,
under the file's lock. It never writes the disk itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

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
from ink_ls.tools._textfile import TextFile, TextFileError, load
from ink_ls.tools.diffs import closest_region, numbered


class EditItem(BaseModel):
    """One replacement."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    old_text: str = Field(
        alias="oldText",
        description="Exact text to replace, as it is in the file now (whitespace included); "
        "it must occur exactly once.",
    )
    new_text: str = Field(alias="newText", description="The text that replaces it.")


class EditParams(ToolParams):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    path: str = Field(
        description="Path of the file to edit, relative to the workspace root or absolute."
    )
    edits: list[EditItem] = Field(
        min_length=1,
        description="Replacements, each matched against the original file (not against the "
        "result of the others); they must not overlap.",
    )


class EditError(Exception):
    """An edit cannot be applied; the message tells the model how to fix it."""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _find_all(body: str, needle: str, cap: int = 1000) -> list[int]:
    """Start offsets of `needle` in `body`, overlapping matches included, at most `cap`."""
    found: list[int] = []
    pos = body.find(needle)
    while pos >= 0 and len(found) < cap:
        found.append(pos)
        pos = body.find(needle, pos + 1)
    return found


def _not_found(body: str, old: str, i: int, shown: str) -> str:
    message = f"Error: edits[{i}].oldText was not found in {shown}."
    region = closest_region(body, old)
    if region is None:
        return message + " Read the file to get its current text, then retry with an exact copy."
    return (
        f"{message} The closest region is lines {region.first}-{region.last}:\n"
        f"{numbered(body, region.first, region.last)}\n"
        "Copy the text exactly as it is there (whitespace and indentation included) and retry."
    )


def apply_edits(file: TextFile, edits: list[EditItem], shown: str) -> str:
    """The new body after all `edits`, each located in the original body. Raises `EditError`."""
    body = file.body
    spans: list[tuple[int, int, int, str]] = []
    for i, edit in enumerate(edits):
        old = edit.old_text.replace("\r\n", "\n")
        new = edit.new_text.replace("\r\n", "\n")
        if not old:
            raise EditError(
                f"Error: edits[{i}].oldText is empty. Give the exact text to replace, with "
                "enough surrounding lines to be unique (use write to replace a whole file)."
            )
        if old == new:
            raise EditError(
                f"Error: edits[{i}] changes nothing: oldText and newText are identical. "
                "Remove it or give the new text."
            )
        hits = _find_all(body, old)
        if not hits:
            raise EditError(_not_found(body, old, i, shown))
        if len(hits) > 1:
            raise EditError(
                f"Error: edits[{i}].oldText matches {len(hits)} times in {shown}. Include more "
                "surrounding lines so that it matches exactly once."
            )
        spans.append((hits[0], hits[0] + len(old), i, new))
    spans.sort()
    for (_, end, i, _), (start, _, j, _) in zip(spans, spans[1:], strict=False):
        if start < end:
            first, second = sorted((i, j))
            raise EditError(
                f"Error: edits[{first}] and edits[{second}] overlap in {shown}. Merge them into "
                "one edit, or choose regions that do not overlap."
            )
    for start, end, _, new in reversed(spans):
        body = body[:start] + new + body[end:]
    return body


class EditTool(Tool[EditParams]):
    """Applies exact replacements to one file through the context's writer."""

    name = "edit"
    description = (
        "Edit one file by exact text replacement. Each edit's oldText must match the current "
        "file exactly once (whitespace included); all edits are matched against the original "
        "file, must not overlap, and are applied together or not at all. The file's encoding "
        "(BOM) and line endings are kept. If a match fails, the error shows the closest region "
        "with line numbers. Use write to create a file or replace it entirely."
    )
    params_model = EditParams
    kind = "edit"

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        return f"edit {shown_path(text_arg(args, 'path'), cwd)}".rstrip()

    def access(self, args: EditParams, cwd: Path) -> Access:
        return Access(writes=frozenset({located_real(args.path, cwd)}))

    async def execute(
        self, args: EditParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        shown = args.path
        if not shown.strip():
            return ToolResult("Error: path is empty; give the file to edit.", is_error=True)
        return await at_located(
            shown, context, lambda path: self._edit(args, path, signal, context), buffers=True
        )

    async def _edit(
        self, args: EditParams, path: Path, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        shown = args.path
        try:
            async with file_lock(path, signal):
                try:
                    file = await load(path, shown, context.files)
                except TextFileError as exc:
                    return ToolResult(str(exc), is_error=True)
                if file is None:
                    return ToolResult(
                        f"Error reading {shown}: No such file or directory (use write to "
                        "create a file)",
                        is_error=True,
                    )
                try:
                    body = apply_edits(file, args.edits, shown)
                except EditError as exc:
                    return ToolResult(str(exc), is_error=True)
                new_text = file.render(body)
                landed = await write_change(
                    context,
                    path,
                    new_text,
                    old_text=file.raw,
                    shown=shown,
                    tool_name=self.name,
                    signal=signal,
                )
                if isinstance(landed, ToolResult):
                    return landed
        except CancelledError:
            return aborted_result(self.name, "the file was not changed")
        return ToolResult(
            f"Edited {shown}: {_plural(len(args.edits), 'edit')} applied.{landed.note}",
            display=diff_display(path, file.raw, landed.text),
        )

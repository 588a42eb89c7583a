"""The find tool: file names matching a glob, via `rg --files` (.gitignore respected), capped.

The glob is matched by rg, and what ignore rules skip is left out even when the glob names it
(see `unignored_glob_files`); only the shown paths are formatted, the rest are only counted.
It never reads file contents or changes anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import (
    Access,
    Tool,
    ToolContext,
    ToolParams,
    ToolResult,
    aborted_result,
    text_arg,
)
from ink_ls.tools._paths import relative_for_display
from ink_ls.tools._rg import RgNotFoundError, unignored_glob_files
from ink_ls.tools._spellings import at_located, located_real
from ink_ls.tools._truncate import MAX_BYTES
from ink_ls.tools.hiding import HIDDEN_NOTE, HidesPaths

DEFAULT_LIMIT = 200
MAX_LIMIT = 1000
BASE_FLAGS = (
    "--files",
    "--no-config",
    "--no-require-git",
    "--hidden",
    "--sort",
    "path",
    "--glob",
    "!.git",
)
"""Sorted by path; hidden files listed, .git never, .gitignore applied even outside a git repo."""


class FindParams(ToolParams):
    pattern: str = Field(
        description="Glob the file paths must match, e.g. '*.py' (any depth), 'src/**/*.ts' "
        "or '**/test_*.py'; matched against paths relative to the searched directory."
    )
    path: str = Field(
        default=".",
        description="Directory to search, relative to the workspace root or absolute "
        "(default: the workspace root).",
    )
    limit: int = Field(
        default=DEFAULT_LIMIT,
        ge=1,
        le=MAX_LIMIT,
        description=f"Maximum number of paths to return (default {DEFAULT_LIMIT}, "
        f"max {MAX_LIMIT}).",
    )


@dataclass
class _Collector:
    limit: int
    paths: list[str] = field(default_factory=list)
    size: int = 0
    total: int = 0
    cut_by_bytes: bool = False

    def feed(self, lines: list[str]) -> None:
        self.total += len(lines)
        for raw in lines:
            if len(self.paths) >= self.limit or self.cut_by_bytes:
                break  # the rest are only counted, so the note can say how many there are
            path = raw.removeprefix("./")
            add = len(path.encode("utf-8")) + (1 if self.paths else 0)
            if self.size + add > MAX_BYTES:
                self.cut_by_bytes = True
                break
            self.paths.append(path)
            self.size += add


class FindTool(HidesPaths, Tool[FindParams]):
    """Finds files by glob with `rg --files`."""

    name = "find"
    description = (
        "Find files whose path matches a glob (e.g. '*.py', 'src/**/*.ts'), sorted by path. "
        "Respects .gitignore; hidden files are included, .git is not. At most "
        f"{DEFAULT_LIMIT} paths by default (limit up to {MAX_LIMIT}) and "
        f"{MAX_BYTES // 1024}KB; when cut, a note gives the total: use a more specific "
        "pattern or path."
    )
    params_model = FindParams
    concurrency_safe = True
    kind = "search"

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        return f"find {text_arg(args, 'pattern')}".rstrip()

    def access(self, args: FindParams, cwd: Path) -> Access:
        return Access(reads=frozenset({located_real(args.path or ".", cwd)}))

    async def execute(
        self, args: FindParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        if not args.pattern.strip():
            return ToolResult("Error: pattern is empty; give a glob such as '*.py'.", True)
        shown = args.path or "."
        return await at_located(
            shown, context, lambda path: self._search(args, path, signal, context)
        )

    async def _search(
        self, args: FindParams, target: Path, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        shown = args.path or "."
        if not target.is_dir():
            what = "is not a directory" if target.exists() else "not found"
            return ToolResult(f"Error: path {what}: {shown}", is_error=True)
        collector = _Collector(limit=args.limit)
        try:
            found, run = await unignored_glob_files(
                BASE_FLAGS,
                args.pattern,
                relative_for_display(target, context.cwd),
                cwd=context.cwd,
                signal=signal,
            )
        except RgNotFoundError as exc:
            return ToolResult(f"Error: {exc}", is_error=True)
        if run.cancelled:
            return aborted_result(self.name)
        kept = [p for p in found if not self.is_hidden(context.cwd / p)]
        hid = len(kept) < len(found)
        collector.feed(kept)
        if not collector.paths:
            if run.exit_code not in (0, 1):
                return ToolResult(f"Error: rg failed: {run.stderr_text()}", is_error=True)
            return ToolResult(
                f"No files found matching {args.pattern}" + (f"\n\n{HIDDEN_NOTE}" if hid else "")
            )
        shown_n, total = len(collector.paths), collector.total
        notes: list[str] = []
        narrow = "Use a more specific pattern or path"
        if collector.cut_by_bytes:
            notes.append(
                f"[Showing {shown_n} of {total} files ({MAX_BYTES // 1024}KB limit). {narrow}.]"
            )
        elif total > shown_n:
            raise_hint = f", or limit={min(total, MAX_LIMIT)}" if args.limit < MAX_LIMIT else ""
            notes.append(
                f"[Showing {shown_n} of {total} files (limit {args.limit}). {narrow}{raise_hint}.]"
            )
        if hid:
            notes.append(HIDDEN_NOTE)
        if run.exit_code not in (0, 1) and run.stderr:
            notes.append(f"[rg reported errors: {run.stderr_text(first_line=True)}]")
        text = "\n".join(collector.paths)
        return ToolResult(text + "\n\n" + "\n".join(notes) if notes else text)

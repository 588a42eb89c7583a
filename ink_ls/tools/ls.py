"""The ls tool: one directory's entries, sorted case-insensitively, capped with a note.

Lists everything (dotfiles included, .gitignore not applied: a listing shows what is there).
Reads only directory entries; never recurses and never follows into subdirectories.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
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
    shown_path,
    text_arg,
)
from ink_ls.tools._spellings import at_located, located_real
from ink_ls.tools._truncate import MAX_BYTES, head_lines
from ink_ls.tools.hiding import HIDDEN_NOTE, HidesPaths

DEFAULT_LIMIT = 500
MAX_LIMIT = 5000


class LsParams(ToolParams):
    path: str = Field(
        default=".",
        description="Directory to list, relative to the workspace root or absolute "
        "(default: the workspace root).",
    )
    limit: int = Field(
        default=DEFAULT_LIMIT,
        ge=1,
        le=MAX_LIMIT,
        description=f"Maximum number of entries to return (default {DEFAULT_LIMIT}, "
        f"max {MAX_LIMIT}).",
    )


@dataclass
class _Listing:
    names: list[str]
    uninspected: set[str]
    """Entries whose stat failed (e.g. a broken symlink): listed without a trailing /."""


class _ListingCancelledError(Exception):
    """The call was cancelled while the directory was being read."""


def _list(path: Path, stop: threading.Event) -> _Listing:
    names: list[str] = []
    failed: set[str] = set()
    with os.scandir(path) as it:
        for entry in it:
            if stop.is_set():  # checked per entry: a huge directory stops at once
                raise _ListingCancelledError
            try:
                # Follows symlinks: a link to a directory is shown as a directory.
                is_dir = entry.is_dir()
                if not is_dir:
                    os.stat(entry.path)
            except OSError:
                failed.add(entry.name)
                names.append(entry.name)
                continue
            names.append(entry.name + "/" if is_dir else entry.name)
    names.sort(key=lambda n: (n.casefold(), n))
    return _Listing(names, failed)


class LsTool(HidesPaths, Tool[LsParams]):
    """Lists one directory."""

    name = "ls"
    description = (
        "List a directory: entries sorted case-insensitively, dotfiles included, directories "
        f"marked with a trailing /. At most {DEFAULT_LIMIT} entries by default (limit up to "
        f"{MAX_LIMIT}) and {MAX_BYTES // 1024}KB; a note says when the listing was cut. "
        "Use find to search for files by name across directories."
    )
    params_model = LsParams
    concurrency_safe = True
    kind = "read"

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        return f"ls {shown_path(text_arg(args, 'path'), cwd) or '.'}"

    def access(self, args: LsParams, cwd: Path) -> Access:
        return Access(reads=frozenset({located_real(args.path or ".", cwd)}))

    async def execute(
        self, args: LsParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        shown = args.path or "."
        return await at_located(shown, context, lambda path: self._list(args, path, signal))

    async def _list(self, args: LsParams, path: Path, signal: CancelSignal) -> ToolResult:
        shown = args.path or "."
        aborted = aborted_result(self.name)
        if signal.cancelled:
            return aborted
        stop = threading.Event()
        unsubscribe = signal.subscribe(stop.set)
        try:
            listing = await asyncio.to_thread(_list, path, stop)
        except _ListingCancelledError:
            return aborted
        except NotADirectoryError:
            return ToolResult(
                f"Error: {shown} is not a directory (use read to read a file)", is_error=True
            )
        except OSError as exc:
            return ToolResult(f"Error listing {shown}: {exc.strerror or exc}", is_error=True)
        finally:
            unsubscribe()
            stop.set()  # if this task itself was cancelled, the worker thread stops too
        if signal.cancelled:  # cancelled after the last entry was read: still no listing
            return aborted
        names = [n for n in listing.names if not self.is_hidden(path / n.rstrip("/"))]
        hid = len(names) < len(listing.names)
        total = len(names)
        if total == 0:
            return ToolResult("(empty directory)" + (f"\n\n{HIDDEN_NOTE}" if hid else ""))
        cut = head_lines(names, max_lines=args.limit, max_bytes=MAX_BYTES)
        notes: list[str] = []
        if cut.cut_by == "lines":
            if args.limit < MAX_LIMIT:
                more = f"Use limit={min(total, MAX_LIMIT)} to see more"
            else:
                more = "Use find with a glob to narrow the listing"
            notes.append(
                f"[Showing {cut.consumed} of {total} entries (limit {args.limit}). {more}.]"
            )
        elif cut.cut_by == "bytes":
            notes.append(
                f"[Showing {cut.consumed} of {total} entries ({MAX_BYTES // 1024}KB limit). "
                "List a subdirectory or use find with a glob to narrow the listing.]"
            )
        if hid:
            notes.append(HIDDEN_NOTE)
        failed = sum(1 for name in cut.lines if name in listing.uninspected)
        if failed:
            notes.append(
                f"[{failed} of the {cut.consumed} entries shown could not be inspected (stat "
                "failed, e.g. a broken symlink); they are listed without a trailing /.]"
            )
        text = cut.text
        return ToolResult(text + "\n\n" + "\n".join(notes) if notes else text)

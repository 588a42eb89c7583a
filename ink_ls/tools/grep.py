"""The grep tool: content search with ripgrep (`rg --json`), .gitignore respected, capped output.

rg's output is streamed and rg is killed as soon as the limit is reached, so memory and time
are bounded by what is shown. It never changes files.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field

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
from ink_ls.tools._paths import relative_for_display
from ink_ls.tools._rg import RgNotFoundError, name_glob_flags, run_rg, unignored_glob_files
from ink_ls.tools._spellings import at_located, located_real
from ink_ls.tools._truncate import MAX_BYTES, format_size, shorten_line
from ink_ls.tools.hiding import HIDDEN_NOTE, Hidden, HidesPaths

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
MAX_LINE_CHARS = 500
# Searched like a user would: hidden files too, never the inside of .git, and .gitignore
# applied even when the workspace is not (yet) a git repository.
WALK_FLAGS = ("--no-config", "--no-require-git", "--hidden", "--glob", "!.git")
BASE_FLAGS = ("--json", *WALK_FLAGS)
# The start of an rg JSON message, enough to name the file of a line too long to keep.
_HEAD = re.compile(
    rb'^\{"type":"(match|context)","data":\{"path":\{"(text|bytes)":"((?:[^"\\]|\\.)*)"'
)


class GrepParams(ToolParams):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    pattern: str = Field(
        description="Regular expression (Rust regex syntax) or, with literal, "
        "the exact text to search for."
    )
    path: str = Field(
        default=".",
        description="File or directory to search, relative to the workspace root or absolute "
        "(default: the workspace root).",
    )
    glob: str | None = Field(
        default=None,
        description="Only search files matching this glob, e.g. '*.py' or 'src/**/*.ts'.",
    )
    ignore_case: bool = Field(
        default=False, alias="ignoreCase", description="Match case-insensitively."
    )
    literal: bool = Field(
        default=False, description="Treat pattern as literal text, not a regular expression."
    )
    context: int = Field(
        default=0, ge=0, le=10, description="Lines of context to show around each match (0-10)."
    )
    limit: int = Field(
        default=DEFAULT_LIMIT,
        ge=1,
        le=MAX_LIMIT,
        description=f"Maximum number of matching lines (default {DEFAULT_LIMIT}, max {MAX_LIMIT}).",
    )


def _text(node: dict[str, str]) -> str:
    if "text" in node:
        return node["text"]
    return base64.b64decode(node.get("bytes", "")).decode("utf-8", "replace")


def _around_match(text: str, submatches: list[dict[str, object]]) -> tuple[str, bool]:
    """`text` cut to `MAX_LINE_CHARS` characters around its first match (byte offsets in
    `submatches`); True when what is shown does not start at the line's start."""
    if len(text) <= MAX_LINE_CHARS:
        return text, False
    first = submatches[0] if submatches else {}
    start_byte, end_byte = first.get("start"), first.get("end")
    if not isinstance(start_byte, int) or not isinstance(end_byte, int):
        return shorten_line(text, MAX_LINE_CHARS), False
    raw = text.encode("utf-8", "surrogatepass")
    start = len(raw[:start_byte].decode("utf-8", "ignore"))
    length = len(raw[start_byte:end_byte].decode("utf-8", "ignore"))
    lead = min(start, max((MAX_LINE_CHARS - length) // 2, 0))
    begin = start - lead
    end = min(len(text), begin + MAX_LINE_CHARS)
    begin = max(0, end - MAX_LINE_CHARS)
    if begin == 0:
        return shorten_line(text, MAX_LINE_CHARS), False
    after = f" [... {len(text) - end:,} more characters]" if end < len(text) else ""
    return f"[... {begin:,} characters] {text[begin:end]}{after}", True


@dataclass
class _Collector:
    """Turns rg's JSON messages into output lines until a limit says stop."""

    limit: int
    context: int
    allowed: set[str] | None = None
    """When set, only these files count (rg's paths, as `rg --files` prints them)."""
    hidden: Hidden | None = None
    """Files the user's `Read` deny rules hide (rg's path, relative to the workspace)."""
    hid: bool = False
    lines: list[str] = field(default_factory=list)
    cut_around: int = 0
    """Long matching lines shown cut around their match rather than from their start."""
    too_long: int = 0
    size: int = 0
    matches: int = 0
    more: bool = False
    cut_by_bytes: bool = False
    _last: tuple[str, int] | None = None
    _trailing: int = 0

    def feed(self, lines: list[bytes]) -> bool:
        return all(self._feed_one(raw) for raw in lines)

    def _feed_one(self, raw: bytes) -> bool:
        try:
            msg = json.loads(raw)
        except ValueError:
            return True
        kind = msg.get("type")
        if kind not in ("match", "context", "begin"):
            return True
        data = msg["data"]
        if self.allowed is not None and _text(data["path"]) not in self.allowed:
            return True  # a file an ignore rule skips, listed only because the glob names it
        if self._hides(_text(data["path"])):
            return True
        if self.matches >= self.limit and kind in ("match", "begin"):
            self.more = True  # another match exists beyond the limit
            return False
        if kind == "begin":
            return True
        if self.matches >= self.limit and self._trailing >= self.context:
            # Context beyond the last match's trailing lines leads to a further match.
            self.more = True
            return False
        path = _text(data["path"]).removeprefix("./")
        number = int(data.get("line_number") or 0)
        text = _text(data["lines"]).rstrip("\r\n")
        if kind == "match":
            text, moved = _around_match(text, data.get("submatches") or [])
            self.cut_around += moved
        else:
            text = shorten_line(text, MAX_LINE_CHARS)
        sep = ":" if kind == "match" else "-"
        line = f"{path}{sep}{number}{sep} {text}"
        return self._add(line, kind, path, number)

    def long_line(self, head: bytes, size: int) -> bool:
        """An rg message too big to keep (a line of tens of MB): named, never silently lost."""
        found = _HEAD.match(head)
        if found is None:
            return True
        kind, encoding, quoted = found.groups()
        path = _text({encoding.decode(): json.loads(b'"' + quoted + b'"')})
        if self.allowed is not None and path not in self.allowed:
            return True
        if self._hides(path):
            return True
        if kind != b"match":
            return True  # a context line: leave it out rather than show half of it
        if self.matches >= self.limit:
            self.more = True
            return False
        self.too_long += 1
        shown = path.removeprefix("./")
        line = f"{shown}:?: [a matching line of about {format_size(size)}, too long to show]"
        return self._add(line, "match", shown, -1)

    def _hides(self, path: str) -> bool:
        if self.hidden is None or not self.hidden(Path(path)):
            return False
        self.hid = True
        return True

    def _add(self, line: str, kind: str, path: str, number: int) -> bool:
        if self.context and self._last is not None and self._last != (path, number - 1):
            line = "--\n" + line
        add = len(line.encode("utf-8")) + (1 if self.lines else 0)
        if self.size + add > MAX_BYTES:
            self.more = self.cut_by_bytes = True
            return False
        self.lines.append(line)
        self.size += add
        self._last = (path, number)
        if kind == "match":
            self.matches += 1
            self._trailing = 0
        else:
            self._trailing += 1
        return True


def _no_matches(args: GrepParams) -> str:
    where = f" in files matching {args.glob}" if args.glob else ""
    return f"No matches for {args.pattern}{where}"


class GrepTool(HidesPaths, Tool[GrepParams]):
    """Searches file contents with ripgrep."""

    name = "grep"
    description = (
        "Search file contents for a regular expression (or literal text) with ripgrep. "
        "Respects .gitignore; hidden files are searched, .git is not. Output lines are "
        "'path:line: text' (context lines 'path-line- text'). At most "
        f"{DEFAULT_LIMIT} matching lines by default (limit up to {MAX_LIMIT}) and "
        f"{MAX_BYTES // 1024}KB; when cut, a note says so: narrow the search with a more "
        "specific pattern, path or glob."
    )
    params_model = GrepParams
    concurrency_safe = True
    kind = "search"

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        path = shown_path(text_arg(args, "path"), cwd)
        return f'grep "{text_arg(args, "pattern")}" {path}'.rstrip()

    def access(self, args: GrepParams, cwd: Path) -> Access:
        return Access(reads=frozenset({located_real(args.path or ".", cwd)}))

    async def execute(
        self, args: GrepParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        if not args.pattern:
            return ToolResult("Error: pattern is empty; give the text to search for.", True)
        shown = args.path or "."
        return await at_located(
            shown, context, lambda path: self._search(args, path, signal, context)
        )

    async def _search(
        self, args: GrepParams, target: Path, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        shown = args.path or "."
        if not target.exists():
            return ToolResult(f"Error: path not found: {shown}", is_error=True)
        flags = list(BASE_FLAGS)
        if args.ignore_case:
            flags.append("--ignore-case")
        if args.literal:
            flags.append("--fixed-strings")
        if args.context:
            flags += ["--context", str(args.context)]
        where = relative_for_display(target, context.cwd)
        collector = _Collector(limit=args.limit, context=args.context)
        if self.hidden is not None:
            hidden = self.hidden
            collector.hidden = lambda path: hidden(context.cwd / path)
        try:
            by_name = name_glob_flags(args.glob) if args.glob else None
            if by_name is not None:
                flags += by_name  # a file type: ignore rules still apply
            elif args.glob:
                # rg's --glob lets a file that .gitignore skips back in: only the files that
                # the glob names and no ignore rule skips count.
                files, listed = await unignored_glob_files(
                    ("--files", *WALK_FLAGS), args.glob, where, cwd=context.cwd, signal=signal
                )
                if listed.cancelled:
                    return aborted_result(self.name)
                if not files:
                    return ToolResult(_no_matches(args))
                collector.allowed = set(files)
                flags += ["--glob", args.glob]
            flags += ["--", args.pattern, where]
            run = await run_rg(
                flags,
                cwd=context.cwd,
                signal=signal,
                on_lines=collector.feed,
                on_long_line=collector.long_line,
            )
        except RgNotFoundError as exc:
            return ToolResult(f"Error: {exc}", is_error=True)
        if run.cancelled:
            return aborted_result(self.name)
        failed = not run.stopped and run.exit_code not in (0, 1)
        if not collector.lines:
            if failed:
                hint = ""
                if "regex parse error" in run.stderr and not args.literal:
                    hint = "\nTo search for the text as it is, set literal to true."
                return ToolResult(f"Error: rg failed: {run.stderr_text()}{hint}", is_error=True)
            return ToolResult(_no_matches(args) + (f"\n\n{HIDDEN_NOTE}" if collector.hid else ""))
        notes: list[str] = []
        narrow = "Narrow the search with a more specific pattern, path or glob"
        if collector.cut_by_bytes:
            notes.append(
                f"[Output cut at {MAX_BYTES // 1024}KB after {collector.matches} matching "
                f"lines. {narrow}.]"
            )
        elif collector.more:
            raise_hint = f", or use limit={MAX_LIMIT}" if args.limit < MAX_LIMIT else ""
            notes.append(
                f"[Showing the first {collector.matches} matching lines (limit {args.limit}); "
                f"there are more. {narrow}{raise_hint}.]"
            )
        if collector.cut_around:
            notes.append(
                f"[{collector.cut_around} matching line(s) over {MAX_LINE_CHARS} characters are "
                "shown cut around their first match; [... N characters] marks what was left "
                "out. Use read with offset to see a whole line.]"
            )
        if collector.too_long:
            notes.append(
                f"[{collector.too_long} matching line(s) are too long to show (':?:' has no "
                "line number). To see the match, run in bash: rg -o -n '.{0,100}PATTERN.{0,100}'"
                " FILE]"
            )
        if collector.hid:
            notes.append(HIDDEN_NOTE)
        if failed and run.stderr:
            notes.append(f"[rg reported errors: {run.stderr_text(first_line=True)}]")
        text = "\n".join(collector.lines)
        return ToolResult(text + "\n\n" + "\n".join(notes) if notes else text)

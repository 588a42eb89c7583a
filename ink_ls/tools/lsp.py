"""The `lsp` tool: definitions, references, hover, symbols, calls, diagnostics and rename.

It asks a `CodeIntel` (`tools.lsp_answers`), which the turn builder gives it only when some
language server answers in the workspace; renames go through the usual `FileWriter`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import (
    Access,
    BatchWriter,
    ChangeRejectedError,
    TextChange,
    Tool,
    ToolContext,
    ToolParams,
    ToolResult,
    document_text,
    shown_path,
    text_arg,
)
from ink_ls.tools import lsp_format as fmt
from ink_ls.tools._change import user_modified_files_note
from ink_ls.tools._paths import real, resolve
from ink_ls.tools.lsp_answers import (
    CALL_OPERATIONS,
    LOCATION_OPERATIONS,
    CodeIntel,
    LspUnavailableError,
    Operation,
    Position,
)

_OPERATION_HELP = {
    "definition": "definition",
    "references": "references (declaration included)",
    "implementation": "implementation",
    "hover": "hover",
    "document_symbols": "document_symbols",
    "workspace_symbols": "workspace_symbols (with query)",
    "incoming_calls": "incoming_calls",
    "outgoing_calls": "outgoing_calls",
    "diagnostics": "diagnostics",
    "rename": "rename (with new_name; edits every file, each change approved as usual)",
}
_NEEDS_POSITION = (*LOCATION_OPERATIONS, *CALL_OPERATIONS, "hover", "rename")


class LspParams(ToolParams):
    operation: Operation = Field(description="What to ask the language server.")
    path: str = Field(description="The file, relative to the workspace root or absolute.")
    line: int | None = Field(
        default=None, ge=1, description="1-based line (operations on a symbol)."
    )
    symbol: str | None = Field(
        default=None, description="The symbol's name on that line (its first occurrence)."
    )
    column: int | None = Field(
        default=None, ge=1, description="1-based column in characters, instead of symbol."
    )
    query: str | None = Field(default=None, description="workspace_symbols: the name to find.")
    new_name: str | None = Field(default=None, description="rename: the new name.")


def _failure(text: str) -> ToolResult:
    return ToolResult(text, is_error=True)


class LspTool(Tool[LspParams]):
    """Asks the workspace's language servers about code."""

    name = "lsp"
    params_model = LspParams
    concurrency_safe = False  # a rename writes files: `access` lets the reads overlap
    kind = "search"

    def __init__(self, intel: CodeIntel) -> None:
        self._intel = intel
        languages = ", ".join(intel.languages()) or "none"
        offered = set(intel.operations())
        operations = ", ".join(d for op, d in _OPERATION_HELP.items() if op in offered)
        self.description = (
            f"Ask the workspace's language servers (languages: {languages}) instead of "
            f"grepping. operation is one of: {operations}. Give path, a 1-based line and the "
            "symbol's name on that line (or a 1-based column). Answers: one `path:line: code` "
            "line per location, sorted, capped with a count."
        )

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        where = shown_path(text_arg(args, "path"), cwd)
        line = args.get("line")
        at = f":{line}" if isinstance(line, int) else ""
        return f"lsp {text_arg(args, 'operation')} {where}{at}".rstrip()

    def access(self, args: LspParams, cwd: Path) -> Access | None:
        """Every operation reads only the file asked about (plan mode and deny rules see it
        as a read); a rename may write any file of the workspace: it declares the workspace
        as written (no call on its files overlaps it; the write policy asks for the real
        changes, every file under one decision)."""
        reads = frozenset({real(args.path, cwd)})
        if args.operation == "rename":
            return Access(reads=reads, writes=frozenset({real(str(cwd), cwd)}))
        return Access(reads=reads)

    async def execute(
        self, args: LspParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        path = resolve(args.path, context.cwd)
        if not path.is_file():
            return _failure(f"{args.path} is not a file; give the path of a source file.")
        try:
            self._intel.check(path)
        except LspUnavailableError as exc:
            return _failure(str(exc))
        text = await document_text(context.files, path)
        if text is None:
            text = path.read_text(encoding="utf-8", errors="replace")
        at: Position | None = None
        if args.operation in _NEEDS_POSITION:
            found = _position(args, text)
            if isinstance(found, str):
                return _failure(found)
            at = found
        try:
            return await self._ask(args, path, text, at, context, signal)
        except LspUnavailableError as exc:
            return _failure(str(exc))

    async def _ask(
        self,
        args: LspParams,
        path: Path,
        text: str,
        at: Position | None,
        context: ToolContext,
        signal: CancelSignal,
    ) -> ToolResult:
        intel, root, op = self._intel, context.cwd, args.operation
        line_of = _line_reader(path, text)
        if op in LOCATION_OPERATIONS and at is not None:
            found = await intel.locations(op, path, text, at)
            return ToolResult(fmt.format_locations(found, root, line_of) or f"no {op} found")
        if op in CALL_OPERATIONS and at is not None:
            calls = await intel.calls(op, path, text, at)
            return ToolResult(fmt.format_calls(calls, root, line_of) or f"no {op} found")
        if op == "hover" and at is not None:
            answer = fmt.format_hover(await intel.hover(path, text, at))
            return ToolResult(answer or "no hover information there")
        if op == "document_symbols":
            symbols = await intel.document_symbols(path, text)
            return ToolResult(fmt.format_document_symbols(symbols) or "no symbols")
        if op == "workspace_symbols":
            if not args.query:
                return _failure("workspace_symbols needs a query: the name to look for.")
            symbols = await intel.workspace_symbols(path, text, args.query)
            return ToolResult(fmt.format_workspace_symbols(symbols, root) or "no symbols found")
        if op == "diagnostics":
            problems = await intel.diagnostics(path, text)
            return ToolResult(fmt.format_diagnostics(problems, path, root) or "no diagnostics")
        if op == "rename" and at is not None:
            return await self._rename(args, path, text, at, context, signal)
        return _failure(f"unknown operation {op}")  # the schema already refuses it

    async def _rename(
        self,
        args: LspParams,
        path: Path,
        text: str,
        at: Position,
        context: ToolContext,
        signal: CancelSignal,
    ) -> ToolResult:
        if not args.new_name:
            return _failure("rename needs new_name: the symbol's new name.")
        edits = await self._intel.rename(path, text, at, args.new_name)
        if not edits:
            return _failure("the language server found nothing to rename there.")
        changes: list[TextChange] = []
        for target, file_edits in sorted(edits.items()):
            old = await document_text(context.files, target)
            if old is None:
                old = target.read_text(encoding="utf-8")
            changes.append(TextChange(target, fmt.apply_edits(old, file_edits), old))
        changed = {target: len(file_edits) for target, file_edits in sorted(edits.items())}
        writer = context.writer
        if isinstance(writer, BatchWriter):  # every file under one decision
            landed = await writer.write_texts(
                changes, tool_name=self.name, tool_call_id=context.tool_call_id, signal=signal
            )
            summary = fmt.summarize_rename(changed, context.cwd, args.new_name)
            edited = [
                (fmt.shown(c.path, context.cwd), c.new_text, landed[c.path])
                for c in changes
                if c.path in landed
            ]
            return ToolResult(summary + user_modified_files_note(edited, len(changes)))
        done: dict[Path, int] = {}
        for change in changes:
            try:
                await writer.write_text(
                    change.path,
                    change.new_text,
                    old_text=change.old_text,
                    tool_name=self.name,
                    tool_call_id=context.tool_call_id,
                    signal=signal,
                )
            except ChangeRejectedError:
                if done:  # some files are already written: say which
                    so_far = fmt.summarize_rename(done, context.cwd, args.new_name)
                    return _failure(f"rename stopped: a change was refused. Done so far: {so_far}")
                raise
            done[change.path] = changed[change.path]
        return ToolResult(fmt.summarize_rename(changed, context.cwd, args.new_name))


def _line_reader(path: Path, text: str) -> fmt.LineOf:
    """Lines of the asked file from its current text, of others from disk (read once each)."""
    cache: dict[Path, list[str]] = {path: text.splitlines()}

    def line_of(target: Path, line: int) -> str:
        if target not in cache:
            try:
                cache[target] = target.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                cache[target] = []
        lines = cache[target]
        return lines[line] if 0 <= line < len(lines) else ""

    return line_of


def _position(args: LspParams, text: str) -> Position | str:
    """The 0-based position the arguments name, or a sentence saying what is missing."""
    if args.line is None:
        return f"{args.operation} needs line (1-based) and symbol (or column)."
    lines = text.splitlines()
    if args.line > len(lines):
        return f"line {args.line} is past the end of {args.path} ({len(lines)} lines)."
    row = lines[args.line - 1]
    if args.symbol:
        column = _word_at(row, args.symbol)
        if column < 0:
            return (
                f"{args.symbol!r} is not on line {args.line} of {args.path}: "
                f"the line is {row.strip()!r}."
            )
        return Position(args.line - 1, column)
    if args.column is not None:
        return Position(args.line - 1, min(args.column - 1, len(row)))
    return f"{args.operation} needs symbol (a name on line {args.line}) or column."


def _word_at(row: str, symbol: str) -> int:
    """The first occurrence of `symbol` as a whole word, else as any substring, else -1."""
    match = re.search(rf"(?<![\w]){re.escape(symbol)}(?![\w])", row)
    return match.start() if match is not None else row.find(symbol)

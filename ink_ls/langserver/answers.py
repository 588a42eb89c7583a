"""Raw LSP answers (lsprotocol types) → the `lsp` tool's records, for every answerer.

Used by the servers ink-ls starts (`workspace`) and by the editor's servers (`editor.intel`):
the conversion is written once. Only lsprotocol here (no pygls).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from ink_ls.tools.lsp_answers import Call, Location, LspUnavailableError, Position, Symbol, TextEdit

Encoding = str
"""A position encoding: "utf-8", "utf-16" or "utf-32" (LSP's names without the kind)."""


def lsp_path(uri: str) -> str:
    """The file system path of a `file://` URI."""
    return unquote(urlparse(uri).path)


def units(line: str, column: int, encoding: Encoding) -> int:
    """A character column as the server counts it in `encoding`."""
    if encoding == "utf-32":
        return column
    if encoding == "utf-8":
        return len(line[:column].encode("utf-8"))
    return len(line[:column].encode("utf-16-le")) // 2


def chars(line: str, count: int, encoding: Encoding) -> int:
    """A server column counted in `encoding` as a character column."""
    if encoding == "utf-32":
        return count
    if encoding == "utf-8":
        return len(line.encode("utf-8")[:count].decode("utf-8", errors="ignore"))
    return len(line.encode("utf-16-le")[: count * 2].decode("utf-16-le", errors="ignore"))


def kind_name(kind: lsp.SymbolKind | int) -> str:
    """`function`, `class`… for a symbol kind."""
    if isinstance(kind, lsp.SymbolKind):
        return kind.name.lower()
    try:
        return lsp.SymbolKind(kind).name.lower()
    except ValueError:
        return str(kind)


def markdown(contents: Any) -> str:
    """Hover contents (markup, a marked string or a list of them) as one markdown text."""
    if isinstance(contents, lsp.MarkupContent):
        return contents.value
    if isinstance(contents, str):
        return contents
    if isinstance(contents, lsp.MarkedStringWithLanguage):
        return f"```{contents.language}\n{contents.value}\n```"
    if isinstance(contents, list):
        return "\n\n".join(markdown(c) for c in contents)
    return ""


def as_list(answer: Any) -> list[Any]:
    """An answer that may be null, one item or a list, as a list."""
    if answer is None:
        return []
    return list(answer) if isinstance(answer, list | tuple) else [answer]


def location(item: lsp.Location | lsp.LocationLink) -> Location:
    """Where a `Location` or `LocationLink` points (a link: its target's selection)."""
    if isinstance(item, lsp.LocationLink):
        return Location(Path(lsp_path(item.target_uri)), item.target_selection_range.start.line)
    return Location(Path(lsp_path(item.uri)), item.range.start.line)


def symbol(item: lsp.DocumentSymbol | lsp.SymbolInformation | lsp.WorkspaceSymbol) -> Symbol:
    """A document symbol (with children) or a workspace symbol (with its path)."""
    if isinstance(item, lsp.DocumentSymbol):
        return Symbol(
            item.name,
            kind_name(item.kind),
            item.selection_range.start.line,
            detail=item.detail or "",
            children=[symbol(c) for c in item.children or []],
        )
    where = item.location
    line = where.range.start.line if isinstance(where, lsp.Location) else 0
    return Symbol(item.name, kind_name(item.kind), line, path=Path(lsp_path(where.uri)))


def incoming_calls(calls: Iterable[lsp.CallHierarchyIncomingCall]) -> list[Call]:
    """Each call site of each caller (its selection when the server gives no ranges)."""
    out: list[Call] = []
    for call in calls:
        where = Path(lsp_path(call.from_.uri))
        for r in call.from_ranges or [call.from_.selection_range]:
            out.append(
                Call(call.from_.name, kind_name(call.from_.kind), Location(where, r.start.line))
            )
    return out


def outgoing_calls(caller_uri: str, calls: Iterable[lsp.CallHierarchyOutgoingCall]) -> list[Call]:
    """Each call site (in the caller's file, `caller_uri`) of each callee."""
    out: list[Call] = []
    where = Path(lsp_path(caller_uri))
    for call in calls:
        for r in call.from_ranges or [call.to.selection_range]:
            out.append(Call(call.to.name, kind_name(call.to.kind), Location(where, r.start.line)))
    return out


def workspace_edits(answer: lsp.WorkspaceEdit) -> dict[str, list[lsp.TextEdit]]:
    """The text edits of a rename's `WorkspaceEdit` by URI; refuses file operations."""
    raw: dict[str, list[lsp.TextEdit]] = {}
    for change in answer.document_changes or []:
        if not isinstance(change, lsp.TextDocumentEdit):
            raise LspUnavailableError(
                "the rename would create, move or delete files, which this tool does not do; "
                "rename the files with bash instead."
            )
        raw.setdefault(change.text_document.uri, []).extend(
            e for e in change.edits if isinstance(e, lsp.TextEdit)
        )
    for uri, edits in (answer.changes or {}).items():
        raw.setdefault(uri, []).extend(edits)
    return raw


def text_edits(
    raw: dict[str, list[lsp.TextEdit]], text_of: Callable[[Path], str], encoding: Encoding
) -> dict[Path, list[TextEdit]]:
    """`workspace_edits` as records in characters; `text_of` gives each file's current text
    (the one the server counted its columns in)."""
    converted: dict[Path, list[TextEdit]] = {}
    for uri, edits in raw.items():
        target = Path(lsp_path(uri))
        lines = text_of(target).splitlines()

        def point(p: lsp.Position, lines: list[str] = lines) -> Position:
            row = lines[p.line] if p.line < len(lines) else ""
            return Position(p.line, chars(row, p.character, encoding))

        converted[target] = [
            TextEdit(point(e.range.start), point(e.range.end), e.new_text) for e in edits
        ]
    return converted


def position(text: str, at: Position, encoding: Encoding) -> lsp.Position:
    """`at` (characters) as an LSP position in `encoding`."""
    lines = text.splitlines()
    row = lines[at.line] if at.line < len(lines) else ""
    return lsp.Position(line=at.line, character=units(row, at.column, encoding))

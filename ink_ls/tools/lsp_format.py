"""The `lsp` tool's answers as the model reads them: one line per location, `path:line: code`.

Paths are relative to the workspace (absolute outside it), lines 1-based, sorted by path then
line, capped with `… and K more`; document symbols as `line: kind name`, children indented.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ink_ls.tools.lsp_answers import Call, Diagnostic, Location, Symbol, TextEdit

MAX_LINES = 100
LineOf = Callable[[Path, int], str]
"""(path, 0-based line) → that line's text, "" when it cannot be read."""


def shown(path: Path, root: Path) -> str:
    """`path` relative to the workspace root, or absolute when outside it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def capped(lines: list[str], limit: int = MAX_LINES) -> str:
    """`lines` joined, at most `limit` of them, then `… and K more`."""
    if len(lines) <= limit:
        return "\n".join(lines)
    return "\n".join([*lines[:limit], f"… and {len(lines) - limit} more"])


def format_locations(locations: list[Location], root: Path, line_of: LineOf) -> str:
    """One `path:line: code` line per distinct location, sorted by path then line."""
    unique = sorted({(shown(loc.path, root), loc.line, loc.path) for loc in locations})
    lines = [f"{name}:{line + 1}: {line_of(path, line).strip()}" for name, line, path in unique]
    return capped(lines)


def format_document_symbols(symbols: list[Symbol]) -> str:
    """`line: kind name` per symbol in line order, children indented by two spaces."""
    lines: list[str] = []

    def walk(items: list[Symbol], depth: int) -> None:
        for symbol in sorted(items, key=lambda s: (s.line, s.name)):
            lines.append(f"{'  ' * depth}{symbol.line + 1}: {symbol.kind} {symbol.name}")
            walk(symbol.children, depth + 1)

    walk(symbols, 0)
    return capped(lines)


def format_workspace_symbols(symbols: list[Symbol], root: Path) -> str:
    """`path:line: kind name` per symbol, sorted by path then line."""
    rows = sorted(
        (shown(s.path, root) if s.path is not None else "", s.line, s.kind, s.name) for s in symbols
    )
    return capped([f"{p}:{line + 1}: {kind} {name}" for p, line, kind, name in rows])


def format_calls(calls: list[Call], root: Path, line_of: LineOf) -> str:
    """`path:line: code  (in kind name)` per call site, sorted by path then line."""
    # calls on one line (`f(g(x))`) by callee name; one row per callee and line
    rows = sorted(
        {
            (shown(c.location.path, root), c.location.line, c.name, c.kind, c.location.path)
            for c in calls
        }
    )
    return capped(
        [
            f"{name}:{line + 1}: {line_of(path, line).strip()}  ({kind} {callee})"
            for name, line, callee, kind, path in rows
        ]
    )


def format_diagnostics(diagnostics: list[Diagnostic], path: Path, root: Path) -> str:
    """`path:line: severity: message (source)` per diagnostic, in line order."""
    name = shown(path, root)
    rows = sorted(diagnostics, key=lambda d: (d.line, d.message))
    return capped(
        [
            f"{name}:{d.line + 1}: {d.severity}: {d.message}"
            + (f" ({d.source})" if d.source else "")
            for d in rows
        ]
    )


def format_hover(markdown: str) -> str:
    """The server's markdown, trimmed of surrounding blank space."""
    return markdown.strip()


def _offset(lines: list[str], line: int, column: int) -> int:
    """The character offset of (line, column) in the text split by `keepends` lines."""
    return sum(len(text) for text in lines[:line]) + column


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """`text` with `edits` applied (non-overlapping ranges, as LSP promises), last first."""
    lines = text.splitlines(keepends=True)
    spans = [
        (_offset(lines, e.start.line, e.start.column), _offset(lines, e.end.line, e.end.column), i)
        for i, e in enumerate(edits)
    ]
    for start, end, i in sorted(spans, reverse=True):
        text = text[:start] + edits[i].new_text + text[end:]
    return text


def summarize_rename(changed: dict[Path, int], root: Path, new_name: str) -> str:
    """What a rename did: the files written and how many edits each."""
    rows = [
        f"{shown(p, root)}: {n} edit{'s' if n != 1 else ''}" for p, n in sorted(changed.items())
    ]
    return f"Renamed to {new_name} in {len(changed)} file(s):\n" + "\n".join(rows)

"""The `lsp` tool's answers as the model reads them: locations, symbols, calls, edits."""

from __future__ import annotations

from pathlib import Path

from ink_ls.tools.lsp_answers import Call, Diagnostic, Location, Position, Symbol, TextEdit
from ink_ls.tools.lsp_format import (
    apply_edits,
    format_calls,
    format_diagnostics,
    format_document_symbols,
    format_hover,
    format_locations,
    format_workspace_symbols,
)

ROOT = Path("/ws")
LINES = {
    ROOT / "b.py": ["import a", "a.f()"],
    ROOT / "a.py": ["def f():", "    return 1", "f()"],
    Path("/elsewhere/lib.py"): ["def f(): ..."],
}


def line_of(path: Path, line: int) -> str:
    return LINES[path][line]


def test_locations_sorted_by_path_then_line_relative_deduplicated_absolute_outside() -> None:
    found = [
        Location(ROOT / "b.py", 1, 2),
        Location(ROOT / "a.py", 2),
        Location(ROOT / "a.py", 0, 4),
        Location(ROOT / "a.py", 2, 0),  # same line twice: one line
        Location(Path("/elsewhere/lib.py"), 0),
    ]
    assert format_locations(found, ROOT, line_of) == (
        "/elsewhere/lib.py:1: def f(): ...\na.py:1: def f():\na.py:3: f()\nb.py:2: a.f()"
    )


def test_locations_are_capped_with_a_count() -> None:
    many = [Location(ROOT / "a.py", 0)] + [Location(ROOT / f"m{i:03}.py", 0) for i in range(105)]
    LINES.update({ROOT / f"m{i:03}.py": ["x"] for i in range(105)})
    lines = format_locations(many, ROOT, line_of).splitlines()
    assert len(lines) == 101 and lines[-1] == "… and 6 more"
    assert lines[0] == "a.py:1: def f():"


def test_document_symbols_line_kind_name_children_indented() -> None:
    symbols = [
        Symbol("g", "function", 9),
        Symbol("C", "class", 0, children=[Symbol("m", "method", 3), Symbol("x", "field", 1)]),
    ]
    shown = format_document_symbols(symbols)
    assert shown == "1: class C\n  2: field x\n  4: method m\n10: function g"


def test_workspace_symbols_and_calls_and_diagnostics() -> None:
    symbols = [Symbol("f", "function", 0, path=ROOT / "a.py")]
    assert format_workspace_symbols(symbols, ROOT) == "a.py:1: function f"
    calls = [Call("main", "function", Location(ROOT / "b.py", 1))]
    assert format_calls(calls, ROOT, line_of) == "b.py:2: a.f()  (function main)"
    problems = [Diagnostic(2, "error", "boom", "jedi"), Diagnostic(0, "warning", "meh")]
    assert format_diagnostics(problems, ROOT / "a.py", ROOT) == (
        "a.py:1: warning: meh\na.py:3: error: boom (jedi)"
    )


def test_calls_on_one_line_sorted_by_callee() -> None:
    """`a.f(b.g())` calls two functions on one line: both are shown, by name."""
    calls = [
        Call("main", "function", Location(ROOT / "b.py", 1)),
        Call("helper", "method", Location(ROOT / "b.py", 1)),
        Call("main", "function", Location(ROOT / "b.py", 1)),
    ]
    assert format_calls(calls, ROOT, line_of) == (
        "b.py:2: a.f()  (method helper)\nb.py:2: a.f()  (function main)"
    )


def test_hover_is_the_markdown_trimmed() -> None:
    assert format_hover("\n\n```python\ndef f()\n```\n\n") == "```python\ndef f()\n```"


def test_edits_apply_last_first_across_lines() -> None:
    text = "def greet():\n    pass\n\ngreet()\nx = greet\n"
    edits = [
        TextEdit(Position(0, 4), Position(0, 9), "salute"),
        TextEdit(Position(3, 0), Position(3, 5), "salute"),
        TextEdit(Position(4, 4), Position(4, 9), "salute"),
    ]
    assert apply_edits(text, edits) == "def salute():\n    pass\n\nsalute()\nx = salute\n"

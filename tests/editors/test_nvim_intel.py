"""The `lsp` tool answered by Neovim's own language server (jedi-language-server attached by
vim.lsp) in a real headless Neovim, against the real ink-ls server and a scripted model; and
the chat input's completion of @ mentions and / commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from ink_ls.editor.intel import hover, locations
from ink_ls.langserver.answers import text_edits, workspace_edits
from ink_ls.protocol.lsp import from_json
from ink_ls.tools import lsp_format as fmt
from tests.editors.test_nvim import _case_of, _content, _run_with_model, assert_passed
from tests.fakes.model_server import FakeModelServer, Reply, text, tool

UTIL = 'def greet(name: str) -> str:\n    """Say hello to someone."""\n    return f"hello {name}"\n'
MAIN = 'from pkg.util import greet\n\n\ndef run() -> str:\n    return greet("world")\n'
OTHER = 'from pkg.util import greet\n\nprint(greet("x"))\n'


def _lsp(operation: str, path: str, line: int, **more: Any) -> Reply:
    return tool("lsp", {"operation": operation, "path": path, "line": line, **more})


SCRIPT: dict[str, list[Reply]] = {
    "lsp": [
        _lsp("definition", "pkg/other.py", 3, symbol="greet"),  # other.py is not loaded
        _lsp("definition", "pkg/main.py", 5, symbol="greet"),
        _lsp("references", "pkg/util.py", 1, symbol="greet"),
        _lsp("hover", "pkg/util.py", 1, symbol="greet"),
        _lsp("rename", "pkg/util.py", 1, symbol="greet", new_name="salute"),
        text("Renamed greet to salute."),
    ],
    "lsp-txt": [_lsp("definition", "notes.txt", 1, column=1), text("Nothing there.")],
}

CASES = [
    "definition, references, hover and rename through the editor equal jedi asked directly",
    "a file no editor server covers falls through: no language server for .txt files",
    "chat input completes @ paths, @selection and / commands from the server",
]


def _respond(payload: dict[str, Any]) -> Reply:
    tag, step = _case_of(payload)
    return SCRIPT[tag][step]


def _results(model: FakeModelServer, tag: str) -> list[str]:
    last = [r for r in model.requests if _case_of(r)[0] == tag][-1]
    return [_content(m) for m in last["messages"] if m["role"] == "tool"]


def _expected(direct: dict[str, Any], ws: Path) -> dict[str, str]:
    """jedi's direct answers in the `lsp` tool's words (the formatter ink-ls uses)."""
    originals = {ws / "pkg" / n: t for n, t in (("util.py", UTIL), ("main.py", MAIN))}
    originals[ws / "pkg" / "other.py"] = OTHER

    def line_of(path: Path, line: int) -> str:
        lines = originals.get(path, "").splitlines()
        return lines[line] if line < len(lines) else ""

    edits = text_edits(
        workspace_edits(from_json(direct["rename"], lsp.WorkspaceEdit)),
        lambda p: originals[p],
        direct["encoding"],
    )
    return {
        "definition": fmt.format_locations(locations(direct["definition"]), ws, line_of),
        "references": fmt.format_locations(locations(direct["references"]), ws, line_of),
        "hover": fmt.format_hover(hover([direct["hover"]])),
        "rename": fmt.summarize_rename({p: len(e) for p, e in edits.items()}, ws, "salute"),
        **{str(p): fmt.apply_edits(originals[p], e) for p, e in edits.items()},
    }


@pytest.mark.timeout(240)
def test_lsp_tool_answered_by_neovims_language_server(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    (ws / "pkg" / "__init__.py").write_text("")
    (ws / "pkg" / "util.py").write_text(UTIL)
    (ws / "pkg" / "main.py").write_text(MAIN)
    (ws / "pkg" / "other.py").write_text(OTHER)
    (ws / "notes.txt").write_text("greet here\n")
    with FakeModelServer() as model:
        model.push(*([_respond] * 20))
        run = _run_with_model("intel_spec.lua", tmp_path, ws, model)
    direct = json.loads(next(x for x in run.results if x.startswith("DIRECT "))[7:])
    run.results = [x for x in run.results if not x.startswith("DIRECT ")]
    assert_passed(run, CASES)
    expected = _expected(direct, ws)
    other_def, main_def, references, hovered, renamed = _results(model, "lsp")[-5:]
    assert main_def == expected["definition"] == "pkg/util.py:1: def greet(name: str) -> str:"
    assert other_def == expected["definition"]  # asked from the file Neovim had not loaded
    assert references == expected["references"]
    assert references.count("\n") == 4  # the def, two imports, two calls
    assert hovered == expected["hover"] and "Say hello to someone." in hovered
    assert renamed == expected["rename"]
    assert renamed.startswith("Renamed to salute in 3 file(s):")
    for name in ("util.py", "main.py", "other.py"):
        path = ws / "pkg" / name
        assert path.read_text() == expected[str(path)], name
    assert _results(model, "lsp-txt")[-1] == "no language server for .txt files"

"""A rename edited by the user before accepting, in a real headless Neovim: jedi-language-server
(attached by vim.lsp) answers the rename, the three files are one review, the user changes two
proposed buffers and accepts once; the model is told which files the user changed, with a
diff for each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.editors.test_nvim import _case_of, _content, _run_with_model, assert_passed
from tests.fakes.model_server import FakeModelServer, Reply, text, tool

UTIL = 'def greet(name: str) -> str:\n    """Say hello to someone."""\n    return f"hello {name}"\n'
MAIN = 'from pkg.util import greet\n\n\ndef run() -> str:\n    return greet("world")\n'
OTHER = 'from pkg.util import greet\n\nprint(greet("x"))\n'
RENAME = {"operation": "rename", "path": "pkg/util.py", "line": 1, "symbol": "greet"}
SCRIPT: dict[str, list[Reply]] = {
    "rn-edit": [tool("lsp", {**RENAME, "new_name": "salute"}), text("Renamed.")],
}
CASES = ["rename edited by the user: two files of the one review hold their versions"]


def _respond(payload: dict[str, Any]) -> Reply:
    tag, step = _case_of(payload)
    return SCRIPT[tag][step]


@pytest.mark.timeout(240)
def test_a_rename_edited_in_neovims_review(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    (ws / "pkg" / "__init__.py").write_text("")
    for name, body in (("util.py", UTIL), ("main.py", MAIN), ("other.py", OTHER)):
        (ws / "pkg" / name).write_text(body)
    with FakeModelServer() as model:
        model.push(*([_respond] * 4))
        run = _run_with_model("rename_spec.lua", tmp_path, ws, model)
        told = [r for r in model.requests if _case_of(r) == ("rn-edit", 1)]
    assert_passed(run, CASES)
    result = [_content(m) for m in told[0]["messages"] if m["role"] == "tool"][-1]
    summary, note = result.split("\nThe user modified", 1)
    # how many edits a file got is jedi's business; which files, ours
    assert [line.split(":")[0] for line in summary.splitlines()] == [
        "Renamed to salute in 3 file(s)",
        "pkg/main.py",
        "pkg/other.py",
        "pkg/util.py",
    ]
    assert note.startswith(
        " your proposed change before accepting it, in 2 of 3 files: pkg/main.py, pkg/util.py "
        "hold their version, not yours (the other files are as you proposed)."
    ), result
    assert '-    return salute("world")\n+    return salute("everyone")\n' in result
    assert '-    """Say hello to someone."""\n+    """Greet someone, politely."""\n' in result
    assert "pkg/other.py (your proposal)" not in result

"""A rename through `ink-ls --acp`, driven by the official TypeScript SDK client
(`scripted.mjs`), ink-ls starting jedi-language-server itself: the one
`session/request_permission` of the rename carries a `diff` content block for every file (and
a location each), and one "Allow once" writes all three files."""

from __future__ import annotations

from pathlib import Path

from tests.acp.test_ts_trust import _run
from tests.e2e.test_cli_lsp import MAIN, OTHER, UTIL, _project
from tests.fakes.model_server import FakeModelServer, text, tool

RENAME = {"operation": "rename", "path": "pkg/util.py", "line": 1, "symbol": "greet"}


def test_the_rename_permission_shows_a_diff_per_file(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    _project(workspace)
    model.push(tool("lsp", {**RENAME, "new_name": "salute"}), text("Renamed."))
    report = _run(
        {
            "cwd": str(workspace),
            "answers": {"Edit 3 files": "allow_once"},
            "prompts": ["rename greet"],
        },
        acp_env,
        tmp_path,
    )
    assert report["stops"] == ["end_turn"]
    [asked] = report["permissions"]  # one decision for the rename
    names = ("main.py", "other.py", "util.py")
    files = [str(workspace / "pkg" / n) for n in names]
    assert asked["title"] == f"Edit 3 files: {', '.join(files)}"
    assert asked["kind"] == "edit"
    assert [c["type"] for c in asked["content"]] == ["diff", "diff", "diff"]
    assert [c["path"] for c in asked["content"]] == files
    originals = dict(zip(names, (MAIN, OTHER, UTIL), strict=True))
    for block, name in zip(asked["content"], names, strict=True):
        assert block["oldText"] == originals[name]
        assert block["newText"] == originals[name].replace("greet", "salute")
    assert [loc["path"] for loc in asked["locations"]] == files
    for name in names:
        assert (workspace / "pkg" / name).read_text() == originals[name].replace("greet", "salute")

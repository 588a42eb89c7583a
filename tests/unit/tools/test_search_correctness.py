"""grep and find against cases other agents' own tests check: ignore files with a glob, a
match inside one 10 MB line, a call cancelled before it starts, rg's error output cut mid-way.
Real rg, real files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ink_ls.core.signal import NEVER, CancelController
from ink_ls.core.tool import ToolContext, ToolResult
from ink_ls.tools import _rg
from ink_ls.tools.find import FindParams, FindTool
from ink_ls.tools.grep import GrepParams, GrepTool


async def grep(cwd: Path, **args: object) -> ToolResult:
    return await GrepTool().execute(GrepParams.model_validate(args), NEVER, ToolContext("c", cwd))


async def find(cwd: Path, **args: object) -> ToolResult:
    return await FindTool().execute(FindParams.model_validate(args), NEVER, ToolContext("c", cwd))


@pytest.fixture
def ignored_tree(tmp_path: Path) -> Path:
    """Files that a .gitignore and a .ignore name one by one (not whole directories)."""
    files = {
        "src/app.py": "token = 1\n",
        "src/secret.py": "token = 2\n",
        "gen/api.gen.py": "token = 3\n",
        "notes/draft.py": "token = 4\n",
        "tests/test_app.py": "token = 5\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / ".gitignore").write_text("secret.py\n*.gen.py\n")
    (tmp_path / "notes" / ".ignore").write_text("draft.py\n")
    return tmp_path


async def test_find_honours_gitignore_and_ignore_files(ignored_tree: Path) -> None:
    r = await find(ignored_tree, pattern="*.py")
    assert (r.output, r.is_error) == ("src/app.py\ntests/test_app.py", False)
    r = await find(ignored_tree, pattern="**/secret.py")
    assert r.output == "No files found matching **/secret.py"
    # a glob with a / (listing intersected) and one without (a file type): the same rules
    assert (await find(ignored_tree, pattern="src/*.py")).output == "src/app.py"
    assert (await find(ignored_tree, pattern="s*.py")).output == "No files found matching s*.py"
    assert (await find(ignored_tree, pattern="*.py", path="src")).output == "src/app.py"


async def test_grep_with_a_glob_skips_what_grep_without_one_skips(ignored_tree: Path) -> None:
    plain = await grep(ignored_tree, pattern="token")
    both = ["src/app.py:1: token = 1", "tests/test_app.py:1: token = 5"]
    assert sorted(plain.output.split("\n")) == both
    for glob in ("*.py", "**/*.py", "{src,tests}/*.py"):
        r = await grep(ignored_tree, pattern="token", glob=glob)
        assert sorted(r.output.split("\n")) == both, glob
    r = await grep(ignored_tree, pattern="token", glob="src/*.py")
    assert r.output == "src/app.py:1: token = 1"
    for glob in ("*.gen.py", "secret.py", "draft.py", "gen/*.py", "**/secret.py"):
        r = await grep(ignored_tree, pattern="token", glob=glob)
        assert r.output == f"No matches for token in files matching {glob}"
    r = await grep(ignored_tree, pattern="token", glob="*.py", path="notes")
    assert r.output == "No matches for token in files matching *.py"


async def test_grep_with_a_glob_still_limits_and_counts(ignored_tree: Path) -> None:
    r = await grep(ignored_tree, pattern="token", glob="*.py", limit=1)
    body, note = r.output.split("\n\n")
    assert body in ("src/app.py:1: token = 1", "tests/test_app.py:1: token = 5")
    assert note.startswith("[Showing the first 1 matching lines (limit 1); there are more.")


async def test_grep_finds_a_match_inside_a_10_mb_line(tmp_path: Path) -> None:
    before, after = "var a=1;" * 600_000, ";var b=2" * 700_000
    (tmp_path / "bundle.min.js").write_text(before + "NEEDLE_X" + after + "\n")
    assert (tmp_path / "bundle.min.js").stat().st_size > 10_000_000
    r = await grep(tmp_path, pattern="NEEDLE_X")
    body, note = r.output.split("\n\n")
    prefix = "bundle.min.js:1: [... "
    assert body.startswith(prefix) and "NEEDLE_X" in body
    shown = body.split("] ", 1)[1].rsplit(" [... ", 1)[0]
    assert len(shown) == 500
    left = int(body[len(prefix) :].split(" ", 1)[0].replace(",", ""))
    assert left + shown.index("NEEDLE_X") == len(before)
    right = int(body.rsplit("[... ", 1)[1].split(" ", 1)[0].replace(",", ""))
    assert left + len(shown) + right == len(before) + len("NEEDLE_X") + len(after)
    assert body.endswith(" more characters]")
    assert note == (
        "[1 matching line(s) over 500 characters are shown cut around their first match; "
        "[... N characters] marks what was left out. Use read with offset to see a whole line.]"
    )


async def test_a_line_too_long_to_keep_is_named_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_rg, "MAX_LINE", 1 << 20)  # the same path a 40 MB line takes
    (tmp_path / "huge.js").write_text("x" * (2 << 20) + "NEEDLE" + "\n")
    (tmp_path / "small.txt").write_text("NEEDLE here\n")
    r = await grep(tmp_path, pattern="NEEDLE")
    assert not r.is_error
    body, note = r.output.split("\n\n")
    assert sorted(body.split("\n")) == [
        "huge.js:?: [a matching line of about 2.1MB, too long to show]",
        "small.txt:1: NEEDLE here",
    ]
    assert note.startswith("[1 matching line(s) are too long to show")


def spy_rg(tmp_path: Path) -> tuple[Path, Path]:
    """A real `rg` wrapper that leaves a mark for every process started, then runs rg."""
    marks = tmp_path / "marks"
    marks.mkdir()
    script = tmp_path / "rg-spy"
    script.write_text(f'#!/bin/sh\nmktemp -p {marks}\nexec {_rg.find_rg()} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, marks


async def test_a_cancelled_call_starts_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script, marks = spy_rg(tmp_path)
    monkeypatch.setattr(_rg, "find_rg", lambda: os.fspath(script))
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.py").write_text("hit\n")
    ctrl = CancelController()
    ctrl.cancel("user")
    calls = [
        (GrepTool(), GrepParams(pattern="hit")),
        (GrepTool(), GrepParams(pattern="hit", glob="*.py")),
        (GrepTool(), GrepParams(pattern="hit", glob="src/*.py")),  # the two-walk path
        (FindTool(), FindParams(pattern="*.py")),
        (FindTool(), FindParams(pattern="src/*.py")),
    ]
    for tool, params in calls:
        r = await tool.execute(params, ctrl.signal, ToolContext("c", work))  # type: ignore[attr-defined]
        assert (r.output, r.is_error) == (f"Error: {tool.name} aborted by user", True)
    assert list(marks.iterdir()) == []
    # the spy does see a process when the call is not cancelled
    assert (await grep(work, pattern="hit")).output == "a.py:1: hit"
    assert len(list(marks.iterdir())) == 1


async def test_rg_error_output_is_cut_on_a_character_boundary(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    r = await grep(tmp_path, pattern="(" + "日" * 3000)  # rg echoes the pattern: over 8KB
    assert r.is_error
    assert "\ufffd" not in r.output
    assert r.output.startswith("Error: rg failed: rg: regex parse error:")
    cut = "[rg's error output was cut at 8KB]"
    cut += "\nTo search for the text as it is, set literal to true."
    assert r.output.endswith("日\n" + cut)
    assert len(r.output.split("\n[rg's")[0].encode()) <= len("Error: rg failed: ") + 8 * 1024

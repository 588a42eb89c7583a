"""grep with the real rg binary on real trees: format, ignores, options, limits, errors."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ink_ls.core.signal import NEVER, CancelController
from ink_ls.core.tool import Access, ToolContext, ToolResult
from ink_ls.tools._rg import find_rg
from ink_ls.tools.grep import GrepParams, GrepTool


async def grep(cwd: Path, **args: object) -> ToolResult:
    return await GrepTool().execute(GrepParams.model_validate(args), NEVER, ToolContext("c", cwd))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("import os\n\ndef Main():\n    return os.getcwd()\n")
    (tmp_path / "src" / "util.ts").write_text("export const main = 1;\n")
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("def main(): pass\n")
    (tmp_path / "debug.log").write_text("main failed\n")
    (tmp_path / ".env").write_text("MAIN=1\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("main branch\n")
    return tmp_path


async def test_match_format_and_relative_paths(tree: Path) -> None:
    r = await grep(tree, pattern="getcwd")
    assert (r.output, r.is_error) == ("src/app.py:4:     return os.getcwd()", False)


async def test_gitignore_respected_hidden_searched_git_dir_skipped(tree: Path) -> None:
    r = await grep(tree, pattern="main", ignoreCase=True)
    assert sorted(r.output.split("\n")) == [
        ".env:1: MAIN=1",
        "src/app.py:3: def Main():",
        "src/util.ts:1: export const main = 1;",
    ]


async def test_case_sensitive_by_default_and_field_name_accepted(tree: Path) -> None:
    assert (await grep(tree, pattern="Main")).output == "src/app.py:3: def Main():"
    r = await grep(tree, pattern="main", ignore_case=True, glob="*.py")
    assert r.output == "src/app.py:3: def Main():"


async def test_literal(tree: Path) -> None:
    r = await grep(tree, pattern="getcwd()", literal=True)
    assert r.output == "src/app.py:4:     return os.getcwd()"


async def test_path_and_glob(tree: Path) -> None:
    assert (await grep(tree, pattern="main", path="src")).output == (
        "src/util.ts:1: export const main = 1;"
    )
    assert (await grep(tree, pattern="o", path="src/app.py", glob="*.py")).output == (
        "src/app.py:1: import os\nsrc/app.py:4:     return os.getcwd()"
    )


async def test_context_lines_and_separators(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("\n".join(f"l{i}" for i in range(1, 11)) + "\n")
    r = await grep(tmp_path, pattern="^l(2|8)$", context=1)
    assert (
        r.output
        == "a.txt-1- l1\na.txt:2: l2\na.txt-3- l3\n--\na.txt-7- l7\na.txt:8: l8\na.txt-9- l9"
    )


async def test_no_matches(tree: Path) -> None:
    r = await grep(tree, pattern="nothing here")
    assert (r.output, r.is_error) == ("No matches for nothing here", False)


async def test_regex_error_reported(tree: Path) -> None:
    r = await grep(tree, pattern="foo(")
    assert r.is_error
    assert r.output.startswith("Error: rg failed: rg: regex parse error:")
    assert r.output.endswith(
        "error: unclosed group\nTo search for the text as it is, set literal to true."
    )


async def test_missing_path(tree: Path) -> None:
    r = await grep(tree, pattern="x", path="nope")
    assert (r.output, r.is_error) == ("Error: path not found: nope", True)


def lines_file(path: Path, n: int) -> None:
    path.write_text("".join(f"hit {i}\n" for i in range(1, n + 1)))


async def test_default_limit_100_vs_101(tmp_path: Path) -> None:
    lines_file(tmp_path / "a.txt", 100)
    r = await grep(tmp_path, pattern="hit")
    assert r.output == "\n".join(f"a.txt:{i}: hit {i}" for i in range(1, 101))
    lines_file(tmp_path / "a.txt", 101)
    r = await grep(tmp_path, pattern="hit")
    assert r.output == "\n".join(f"a.txt:{i}: hit {i}" for i in range(1, 101)) + (
        "\n\n[Showing the first 100 matching lines (limit 100); there are more. Narrow the "
        "search with a more specific pattern, path or glob, or use limit=1000.]"
    )


async def test_limit_reached_across_files_and_at_max(tmp_path: Path) -> None:
    lines_file(tmp_path / "a.txt", 3)
    lines_file(tmp_path / "b.txt", 3)
    r = await grep(tmp_path, pattern="hit", limit=3)
    body, note = r.output.split("\n\n")
    assert len(body.split("\n")) == 3
    assert note.startswith("[Showing the first 3 matching lines (limit 3); there are more.")
    lines_file(tmp_path / "big.txt", 1001)
    r = await grep(tmp_path, pattern="hit", path="big.txt", limit=1000)
    assert (
        r.output.endswith("a more specific pattern, path or glob.]")
        and "limit=" not in r.output.split("\n\n")[1]
    )


async def test_limit_with_trailing_context(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x1\nctx\nctx\nx2\n")
    r = await grep(tmp_path, pattern="^x", limit=1, context=1)
    assert r.output.split("\n\n")[0] == "a.txt:1: x1\na.txt-2- ctx"
    assert "there are more" in r.output


async def test_50kb_cap(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"hit {'x' * 400} {i}\n" for i in range(200)))
    r = await grep(tmp_path, pattern="hit", limit=1000)
    body, note = r.output.split("\n\n")
    assert len(body.encode()) <= 50 * 1024
    n = len(body.split("\n"))
    assert n == 51200 // 417
    assert note == (
        f"[Output cut at 50KB after {n} matching lines. Narrow the search with a more "
        "specific pattern, path or glob.]"
    )


async def test_long_lines_shortened(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("needle" + "y" * 1000 + "\n")
    r = await grep(tmp_path, pattern="needle")
    assert r.output == "a.txt:1: needle" + "y" * 494 + "... [line cut at 500 characters]"


async def test_cancel_kills_rg(tree: Path) -> None:
    ctrl = CancelController()
    ctrl.cancel("user")
    r = await GrepTool().execute(GrepParams(pattern="main"), ctrl.signal, ToolContext("c", tree))
    assert (r.output, r.is_error) == ("Error: grep aborted by user", True)


def test_rg_found_beside_the_interpreter_without_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    found = find_rg()
    assert found == os.path.join(os.path.dirname(sys.executable), "rg")


def test_schema_and_access(tmp_path: Path) -> None:
    schema = GrepTool().parameters()
    assert schema["required"] == ["pattern"]
    assert set(schema["properties"]) == {
        "pattern",
        "path",
        "glob",
        "ignoreCase",
        "literal",
        "context",
        "limit",
    }
    assert schema["properties"]["context"]["maximum"] == 10
    assert schema["properties"]["limit"]["maximum"] == 1000
    assert all("description" in p for p in schema["properties"].values())
    access = GrepTool().access(GrepParams(pattern="x", path="src/.."), tmp_path)
    assert access == Access(reads=frozenset({tmp_path.resolve()}))
    assert GrepTool.concurrency_safe

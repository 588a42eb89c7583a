"""find with the real rg binary: globs, ignores, sorting, limits and notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ink_ls.core.signal import NEVER
from ink_ls.core.tool import Access, ToolContext, ToolResult
from ink_ls.tools.find import FindParams, FindTool


async def find(cwd: Path, **args: object) -> ToolResult:
    return await FindTool().execute(FindParams.model_validate(args), NEVER, ToolContext("c", cwd))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for rel in [
        "src/b.py",
        "src/A.py",
        "src/deep/c.py",
        "src/web/x.ts",
        "tests/test_a.py",
        ".hidden/h.py",
        "build/gen.py",
        "notes.md",
        ".git/hooks/pre.py",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    (tmp_path / ".gitignore").write_text("build/\n")
    return tmp_path


async def test_glob_any_depth_sorted_ignores_applied(tree: Path) -> None:
    r = await find(tree, pattern="*.py")
    assert (r.output, r.is_error) == (
        ".hidden/h.py\nsrc/A.py\nsrc/b.py\nsrc/deep/c.py\ntests/test_a.py",
        False,
    )


async def test_path_glob_and_search_path(tree: Path) -> None:
    assert (await find(tree, pattern="src/**/*.ts")).output == "src/web/x.ts"
    assert (await find(tree, pattern="*.py", path="src/deep")).output == "src/deep/c.py"
    assert (await find(tree / "src", pattern="*.py", path="../tests")).output.endswith(
        "tests/test_a.py"
    )


async def test_no_files(tree: Path) -> None:
    r = await find(tree, pattern="*.rs")
    assert (r.output, r.is_error) == ("No files found matching *.rs", False)


async def test_bad_paths(tree: Path) -> None:
    r = await find(tree, pattern="*", path="notes.md")
    assert (r.output, r.is_error) == ("Error: path is not a directory: notes.md", True)
    r = await find(tree, pattern="*", path="nope")
    assert (r.output, r.is_error) == ("Error: path not found: nope", True)


def many(root: Path, n: int) -> None:
    for i in range(n):
        (root / f"f{i:04d}.txt").touch()


async def test_default_limit_200_vs_201(tmp_path: Path) -> None:
    many(tmp_path, 200)
    r = await find(tmp_path, pattern="*.txt")
    assert r.output == "\n".join(f"f{i:04d}.txt" for i in range(200))
    (tmp_path / "g.txt").touch()
    r = await find(tmp_path, pattern="*.txt")
    assert r.output == "\n".join(f"f{i:04d}.txt" for i in range(200)) + (
        "\n\n[Showing 200 of 201 files (limit 200). Use a more specific pattern or path, "
        "or limit=201.]"
    )


async def test_max_limit_note(tmp_path: Path) -> None:
    many(tmp_path, 1001)
    r = await find(tmp_path, pattern="*.txt", limit=1000)
    assert r.output.endswith(
        "\n\n[Showing 1000 of 1001 files (limit 1000). Use a more specific pattern or path.]"
    )


async def test_50kb_cap(tmp_path: Path) -> None:
    for i in range(400):
        (tmp_path / (f"{i:03d}" + "n" * 200 + ".txt")).touch()  # 207 bytes + newline: 246 fit
    r = await find(tmp_path, pattern="*.txt", limit=1000)
    body, note = r.output.split("\n\n")
    assert len(body.split("\n")) == 246
    assert note == "[Showing 246 of 400 files (50KB limit). Use a more specific pattern or path.]"


def test_schema_and_access(tmp_path: Path) -> None:
    schema = FindTool().parameters()
    assert schema["required"] == ["pattern"]
    assert schema["properties"]["limit"]["default"] == 200
    assert schema["properties"]["limit"]["maximum"] == 1000
    assert FindTool().access(FindParams(pattern="*"), tmp_path) == Access(
        reads=frozenset({tmp_path.resolve()})
    )
    assert FindTool.concurrency_safe

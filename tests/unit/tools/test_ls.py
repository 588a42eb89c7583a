"""ls on real directories: order, markers, limits and notes, stat failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from ink_ls.core.signal import NEVER
from ink_ls.core.tool import Access, ToolContext, ToolResult
from ink_ls.tools.ls import LsParams, LsTool


async def ls(cwd: Path, **args: object) -> ToolResult:
    return await LsTool().execute(LsParams.model_validate(args), NEVER, ToolContext("c", cwd))


async def test_sorted_case_insensitively_with_dotfiles_and_dirs(tmp_path: Path) -> None:
    for name in ["b.txt", "A.txt", ".env", "Zeta", "alpha"]:
        (tmp_path / name).write_text("x")
    (tmp_path / "src").mkdir()
    (tmp_path / "Docs").mkdir()
    (tmp_path / "link-to-src").symlink_to(tmp_path / "src")
    r = await ls(tmp_path)
    assert (r.output, r.is_error) == (
        ".env\nA.txt\nalpha\nb.txt\nDocs/\nlink-to-src/\nsrc/\nZeta",
        False,
    )


async def test_subdirectory_and_gitignored_entries_listed(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / ".gitignore").write_text("build/\n")
    (tmp_path / "pkg" / "build").mkdir()
    r = await ls(tmp_path, path="pkg")
    assert r.output == ".gitignore\nbuild/"


async def test_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "e").mkdir()
    assert (await ls(tmp_path, path="e")).output == "(empty directory)"


async def test_errors(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x")
    r = await ls(tmp_path, path="f.txt")
    assert (r.output, r.is_error) == (
        "Error: f.txt is not a directory (use read to read a file)",
        True,
    )
    r = await ls(tmp_path, path="missing")
    assert (r.output, r.is_error) == ("Error listing missing: No such file or directory", True)


async def test_broken_symlink_kept_and_counted(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    r = await ls(tmp_path)
    assert r.output == (
        "a.txt\ndangling\n\n[1 of the 2 entries shown could not be inspected (stat failed, e.g. a "
        "broken symlink); they are listed without a trailing /.]"
    )


def make(dirpath: Path, n: int, width: int = 8) -> None:
    for i in range(n):
        (dirpath / f"f{i:0{width}d}").touch()


async def test_500_entries_fit_501_are_cut(tmp_path: Path) -> None:
    make(tmp_path, 500)
    r = await ls(tmp_path)
    assert r.output.count("\n") == 499 and "[" not in r.output
    (tmp_path / "g").touch()
    r = await ls(tmp_path)
    lines = r.output.split("\n")
    assert lines[:500] == [f"f{i:08d}" for i in range(500)]
    assert lines[500:] == [
        "",
        "[Showing 500 of 501 entries (limit 500). Use limit=501 to see more.]",
    ]


async def test_larger_limit(tmp_path: Path) -> None:
    make(tmp_path, 700)
    r = await ls(tmp_path, limit=600)
    assert r.output.endswith(
        "\n\n[Showing 600 of 700 entries (limit 600). Use limit=700 to see more.]"
    )
    assert (await ls(tmp_path, limit=700)).output.count("\n") == 699


async def test_max_limit_suggests_narrowing(tmp_path: Path) -> None:
    make(tmp_path, 5001, width=4)
    r = await ls(tmp_path, limit=5000)
    assert r.output.endswith(
        "\n\n[Showing 5000 of 5001 entries (limit 5000). Use find with a glob to narrow the "
        "listing.]"
    )


async def test_50kb_cap(tmp_path: Path) -> None:
    for i in range(300):
        (tmp_path / (f"{i:03d}" + "n" * 200)).touch()  # 204 bytes a line: 250 fit in 50KB
    r = await ls(tmp_path)
    body, note = r.output.split("\n\n")
    assert len(body.split("\n")) == 250
    assert len(body.encode()) <= 50 * 1024
    assert note == (
        "[Showing 250 of 300 entries (50KB limit). List a subdirectory or use find with a "
        "glob to narrow the listing.]"
    )


@pytest.mark.parametrize("limit", [0, 5001])
def test_limit_bounds(limit: int) -> None:
    with pytest.raises(ValueError):
        LsParams.model_validate({"limit": limit})


def test_access(tmp_path: Path) -> None:
    assert LsTool().access(LsParams(), tmp_path) == Access(reads=frozenset({tmp_path.resolve()}))
    assert LsTool.concurrency_safe

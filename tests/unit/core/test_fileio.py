"""`atomic_write_text`: all-or-nothing, link-safe, keeps modes; the front-end e2e tests
(tests/e2e/test_file_safety.py) show the same through the real server and CLI."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ink_ls.core import fileio
from ink_ls.core.fileio import FileWriteError, atomic_write_text


def test_new_file_gets_the_umask_mode_and_parents(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        written = atomic_write_text(tmp_path / "a" / "b.txt", "hi\r\n")
    finally:
        os.umask(old)
    assert written == tmp_path / "a" / "b.txt"
    assert written.read_bytes() == b"hi\r\n"
    assert stat.S_IMODE(written.stat().st_mode) == 0o644


def test_mode_and_link_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "t.sh"
    target.write_text("old")
    target.chmod(0o750)
    (tmp_path / "l.sh").symlink_to(target)
    assert atomic_write_text(tmp_path / "l.sh", "new") == target
    assert (tmp_path / "l.sh").is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.sh", "t.sh"]


def test_a_failed_write_leaves_the_original_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.txt"
    target.write_text("original")

    def no_space(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "fsync", no_space)
    with pytest.raises(FileWriteError) as info:
        atomic_write_text(target, "new text")
    assert info.value.strerror == "No space left on device; f.txt was left unchanged"
    assert target.read_text() == "original"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileWriteError, match="is not a regular file"):
        atomic_write_text(tmp_path, "x")


def test_a_write_named_inside_never_lands_outside(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (outside / "t.txt").write_text("theirs")
    (ws / "link.txt").symlink_to(outside / "t.txt")
    (ws / "dir").symlink_to(outside)
    for name in ("link.txt", "dir/t.txt", "dir/new.txt"):
        with pytest.raises(FileWriteError, match="outside the workspace; nothing was written"):
            fileio.write_in_workspace(ws / name, "mine", ws)
    assert (outside / "t.txt").read_text() == "theirs" and not (outside / "new.txt").exists()
    (ws / "inner.txt").write_text("old")
    (ws / "alias.txt").symlink_to("inner.txt")
    assert fileio.write_in_workspace(ws / "alias.txt", "new", ws) == ws / "inner.txt"
    # named outside (and approved as such): written where it was named
    assert fileio.write_in_workspace(outside / "t.txt", "ok", ws) == outside / "t.txt"


def test_a_directory_swapped_for_a_link_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "sub").mkdir(parents=True)
    outside.mkdir()
    real_open = os.open

    def swap_then_open(path: object, flags: int, *args: object, **kw: object) -> int:
        if Path(str(path)) == ws / "sub" and flags & os.O_DIRECTORY:
            (ws / "sub").rmdir()
            (ws / "sub").symlink_to(outside)  # the race: after resolving, before opening
        return real_open(path, flags, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(fileio.os, "open", swap_then_open)
    with pytest.raises(FileWriteError, match="changed while it was being written"):
        atomic_write_text(ws / "sub" / "f.txt", "x", within=ws)
    assert list(outside.iterdir()) == []


def test_read_for_context_only_regular_files_inside(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "out.md").write_text("outside")
    (ws / "link.md").symlink_to(tmp_path / "out.md")
    os.mkfifo(ws / "fifo.md")
    (ws / "big.md").write_text("x" * 100)
    with pytest.raises(fileio.NotReadError, match="outside the workspace"):
        fileio.read_workspace_file(ws / "link.md", ws, limit=10)
    with pytest.raises(fileio.NotReadError, match="not a regular file"):
        fileio.read_workspace_file(ws / "fifo.md", ws, limit=10)  # and never blocks
    assert fileio.read_workspace_file(ws / "big.md", ws, limit=10) == (b"x" * 10, 100)

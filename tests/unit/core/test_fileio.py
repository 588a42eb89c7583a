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

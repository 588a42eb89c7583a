"""A small real tmpfs for "disk full" tests (mounting needs root: the CI runs the tests as root)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_tmpfs(path: Path, size: str = "64k") -> Iterator[Path]:
    """Mount a `size` tmpfs at `path` (created) for the block; skipped when not root."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs to fill the disk needs root (CI runs the tests as root)")
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(directory: Path) -> None:
    """Take every free block of the filesystem of `directory` (a file named `filler`)."""
    with open(directory / "filler", "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
        except OSError:
            pass

"""ls honours a cancel that comes while it reads a big directory, and its stat-failure note
counts only the entries it shows. Real directories, real broken symlinks."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ink_ls.core.signal import NEVER, CancelController
from ink_ls.core.tool import ToolContext
from ink_ls.tools.ls import LsParams, LsTool


def _directory_open(path: Path) -> bool:
    """Whether this process holds `path` open (os.scandir's descriptor while it lists)."""
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == os.fspath(path):
                return True
        except OSError:
            continue
    return False


@pytest.fixture
def big(tmp_path: Path) -> Iterator[Path]:
    """A directory of 20,000 files, in memory when the machine has /dev/shm (creating that
    many entries on a busy disk takes many seconds)."""
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else tmp_path) as made:
        for i in range(20_000):
            os.close(os.open(Path(made) / f"f{i:05d}", os.O_CREAT | os.O_WRONLY, 0o644))
        yield Path(made)


async def test_a_cancel_during_the_listing_returns_no_listing(tmp_path: Path, big: Path) -> None:
    ctrl = CancelController()
    task = asyncio.create_task(
        LsTool().execute(LsParams(path=os.fspath(big)), ctrl.signal, ToolContext("c", tmp_path))
    )
    for _ in range(10_000):  # until the worker thread really is inside the directory
        if _directory_open(big):
            break
        await asyncio.sleep(0.001)  # a poll interval that leaves the worker the GIL
    assert _directory_open(big), "the listing was never seen in progress"
    ctrl.cancel("user")
    r = await task
    assert (r.output, r.is_error) == ("Error: ls aborted by user", True)
    for _ in range(10_000):  # the worker stops and lets go of the directory
        if not _directory_open(big):
            break
        await asyncio.sleep(0.001)
    assert not _directory_open(big)


async def test_an_already_cancelled_call_lists_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.txt").touch()
    ctrl = CancelController()
    ctrl.cancel("user")
    r = await LsTool().execute(LsParams(), ctrl.signal, ToolContext("c", tmp_path))
    assert (r.output, r.is_error) == ("Error: ls aborted by user", True)


async def test_the_stat_note_counts_only_the_entries_shown(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"a{i}.txt").touch()
    for i in range(3):
        (tmp_path / f"z{i}").symlink_to(tmp_path / f"gone{i}")  # broken: sorted last
    tool, ctx = LsTool(), ToolContext("c", tmp_path)
    r = await tool.execute(LsParams(limit=5), NEVER, ctx)
    assert r.output == (
        "a0.txt\na1.txt\na2.txt\na3.txt\na4.txt\n\n"
        "[Showing 5 of 8 entries (limit 5). Use limit=8 to see more.]"
    )
    r = await tool.execute(LsParams(limit=6), NEVER, ctx)
    assert r.output.endswith(
        "a4.txt\nz0\n\n[Showing 6 of 8 entries (limit 6). Use limit=8 to see more.]\n"
        "[1 of the 6 entries shown could not be inspected (stat failed, e.g. a broken symlink); "
        "they are listed without a trailing /.]"
    )

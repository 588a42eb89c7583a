"""`_procfs.family`: our descendants found from our own pid down, escapees included, at a cost
that follows our tree's size and not the number of processes on the machine."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path

import pytest

from ink_ls.tools import _procfs
from tests.unit.tools.proc_checks import running

DEADLINE = 30.0


def _wait_for_pids(path: Path, count: int) -> list[int]:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        pids = [int(p) for p in path.read_text().split()] if path.exists() else []
        if len(pids) == count and all(running(p) for p in pids):
            return pids
        time.sleep(0.01)
    raise AssertionError(f"{path} did not list {count} running pids in time")


def test_family_holds_children_grandchildren_and_escapees(tmp_path: Path) -> None:
    assert _procfs.enable_subreaper()
    pids = tmp_path / "pids"
    # a child in the group, one that leaves the session, and a double-forked `setsid` one
    # whose parent exits at once (re-parented to us, the subreaper)
    command = (
        f"sleep 1000 & echo $! >> {pids}; setsid sleep 1000 & echo $! >> {pids}; "
        f"( setsid sleep 1000 & echo $! >> {pids} ); wait"
    )
    shell = subprocess.Popen(["/bin/bash", "-c", command], start_new_session=True)
    grandchildren: list[int] = []
    try:
        grandchildren = _wait_for_pids(pids, 3)
        deadline = time.monotonic() + DEADLINE
        while True:  # until it left the session and, its subshell gone, was re-parented to us
            found = _procfs.family(os.getpid())
            assert found is not None
            escapee = found.get(grandchildren[2])
            if escapee is not None and (escapee.ppid, escapee.sid) == (os.getpid(), escapee.pid):
                break
            assert time.monotonic() < deadline, "the escapee was not re-parented to us"
            time.sleep(0.01)
        assert {shell.pid, *grandchildren} <= set(found)
        assert os.getpid() not in found and os.getppid() not in found and 1 not in found
    finally:
        os.killpg(shell.pid, 9)
        for pid in grandchildren:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        shell.wait()
        for pid in grandchildren[2:]:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)  # ours to reap once re-parented to us


def test_family_reads_only_our_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _procfs.enable_subreaper()
    read: list[int] = []
    real = _procfs.proc_info

    def counted(pid: int) -> _procfs.ProcInfo | None:
        read.append(pid)
        return real(pid)

    monkeypatch.setattr(_procfs, "proc_info", counted)
    child = subprocess.Popen(["sleep", "1000"])
    try:
        found = _procfs.family(os.getpid())
        assert found is not None and child.pid in found
        machine = sum(name.isdigit() for name in os.listdir("/proc"))
        # one stat read per member of our tree, none for the rest of the machine
        assert sorted(read) == sorted(found) and len(read) < machine
    finally:
        child.kill()
        child.wait()

"""Reading /proc and becoming a child subreaper: the Linux facts `_process` decides on.

Read-only except for `enable_subreaper`; must not signal (beyond a null probe) or reap. Without
/proc (not Linux) the readers return None and callers fall back to what signals alone can do.
"""

from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass

_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None


def enable_subreaper() -> bool:
    """Make this process the reaper of orphaned descendants (Linux); True when in effect."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _subreaper = False
    return _subreaper


@dataclass(frozen=True)
class ProcInfo:
    """One line of /proc/<pid>/stat, the fields we use."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    start: int

    @property
    def zombie(self) -> bool:
        return self.state in ("Z", "X")


def proc_info(pid: int) -> ProcInfo | None:
    """The /proc entry of `pid`, or None when it is gone (or /proc is unavailable)."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        data = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    # The command name may contain spaces and parentheses: split after the last ")".
    fields = data[data.rindex(b")") + 2 :].split()
    return ProcInfo(
        pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0].decode(), int(fields[19])
    )


def snapshot() -> dict[int, ProcInfo] | None:
    """Every process visible in /proc, or None when there is no /proc (not Linux)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    procs: dict[int, ProcInfo] = {}
    for name in names:
        if name.isdigit():
            info = proc_info(int(name))
            if info is not None:
                procs[info.pid] = info
    return procs if procs else None


def _children(pid: int) -> list[int] | None:
    """The pids `pid`'s threads forked and have not been reaped, or None when unreadable."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    kids: list[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                kids.extend(int(k) for k in fh.read().split())
        except OSError:
            continue  # the thread ended meanwhile
    return kids


def family(root: int) -> dict[int, ProcInfo] | None:
    """Every descendant of `root` (zombies included, `root` not), found by walking
    /proc/<pid>/task/*/children down from it: the cost follows the size of `root`'s tree, not
    the machine's process count. None when the kernel offers no children lists."""
    first = _children(root)
    if first is None or not os.path.exists(f"/proc/{root}/task/{root}/children"):
        return None
    procs: dict[int, ProcInfo] = {}
    stack = first
    while stack:
        pid = stack.pop()
        if pid in procs:
            continue
        info = proc_info(pid)
        if info is None:
            continue  # gone (and reaped) since its parent's list was read
        procs[pid] = info
        stack.extend(_children(pid) or [])
    return procs


def proc_available() -> bool:
    """Whether this system has a /proc to read (Linux)."""
    return os.path.exists("/proc/self/stat")


def is_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (a zombie has stopped running)."""
    info = proc_info(pid)
    if info is not None:
        return not info.zombie
    if proc_available():
        return False
    try:  # no /proc: fall back to a null signal
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def has_tag(pid: int, tag: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return tag in fh.read().split(b"\0")
    except OSError:
        return False


def exiting(pid: int) -> bool:
    """True when the process has no address space left (it is dying): its environment then
    reads as empty, so the tag cannot tell whose it was."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return fh.read().split(b" ", 1)[0] == b"0"
    except OSError:
        return True  # already gone


def subreaper_enabled() -> bool:
    """Whether `enable_subreaper` succeeded (orphans of our descendants come back to us)."""
    return bool(_subreaper)

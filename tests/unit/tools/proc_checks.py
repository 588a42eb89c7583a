"""What the process tests check a process by, read straight from /proc (independently of the
code under test in `ink_ls.tools._procfs`)."""

from __future__ import annotations

from pathlib import Path


def running(pid: int) -> bool:
    """True while the pid exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"

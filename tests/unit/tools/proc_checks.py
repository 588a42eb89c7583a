"""What the process tests check a process by, read straight from /proc (independently of the
code under test in `ink_ls.tools._procfs`)."""

from __future__ import annotations

from pathlib import Path

from ink_ls.core.tool import CommandDisplay, ToolResult


def running(pid: int) -> bool:
    """True while the pid exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


def exit_code(result: ToolResult) -> int | None:
    """The exit code a bash result shows the editor (None when the command did not exit)."""
    assert isinstance(result.display, CommandDisplay)
    return result.display.exit_code


def exit_log(result: ToolResult) -> str | None:
    """Where a bash result's full log is (None when the output was not cut)."""
    assert isinstance(result.display, CommandDisplay)
    return result.display.log_path

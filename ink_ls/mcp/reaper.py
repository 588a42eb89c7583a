"""No MCP server outlives ink-ls, even one that ignores its stdin closing.

The SDK starts each stdio server in a session of its own and stops it on a clean shutdown, but
keeps the process to itself. So each start notes which new children (session leaders) appeared,
and at interpreter exit or SIGTERM/SIGHUP/SIGINT their process groups get SIGKILL, before the
previous handler (the tools' own clean-up) runs. A pid is killed only while it is still our child.
"""

from __future__ import annotations

import atexit
import functools
import os
import signal
import threading
from pathlib import Path
from types import FrameType

_servers: set[int] = set()
_installed = False


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, session id) of `pid`, or None when it is gone or a zombie."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[1]), int(fields[3])


def children() -> set[int]:
    """Our live children that lead a session of their own (how the SDK starts servers)."""
    me = os.getpid()
    found: set[int] = set()
    try:
        tasks = list(Path(f"/proc/{me}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found |= {int(p) for p in (task / "children").read_text().split()}
        except (OSError, ValueError):
            continue
    return {p for p in found if (s := _stat(p)) is not None and s[0] == me and s[1] == p}


def note_started(before: set[int]) -> None:
    """Remember the session leaders that appeared since `before` (a server start)."""
    install()
    _servers.update(children() - before)


def kill_servers() -> None:
    """SIGKILL the process group of every noted server that is still our child."""
    me = os.getpid()
    for pid in list(_servers):
        _servers.discard(pid)
        stat = _stat(pid)
        if stat is not None and stat[0] == me and stat[1] == pid:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def _on_signal(previous: object, signum: int, frame: FrameType | None) -> None:
    kill_servers()
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def install() -> None:
    """Once per process: kill noted servers at exit and on SIGTERM/SIGHUP/SIGINT."""
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(kill_servers)
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            previous = signal.getsignal(signum)
            signal.signal(signum, functools.partial(_on_signal, previous))

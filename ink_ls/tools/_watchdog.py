"""The watchdog: kills what our commands started when this process dies, even of `kill -9`.

A signal handler or `atexit` cannot run on SIGKILL, and a command's process group is in a
session of its own, so nothing the kernel does on our death reaches it. So each ink-ls process
starts one small helper (`python -I -S -c WATCHDOG`, its own session, SIGINT/SIGHUP ignored)
that holds the read end of a pipe whose only write end we keep (close-on-exec: commands never
inherit it). When we die, however we die, the kernel closes the write end; the helper reads
EOF, SIGKILLs every process whose environment carries our tag prefix (each command runs with
`INK_PROCESS_TAG=<prefix>-<call>`, kept by its children and by those that leave the group)
and their process groups, repeats until none is left, and exits.

Why not `PR_SET_PDEATHSIG` on each command's group leader: the leader would have to be a
supervisor that outlives its command to end the group (bash running the command as a
background job would start it with SIGINT ignored), at a process per command; and the death
signal follows the *thread* that forked, not the process. One helper per process, found by
tag, covers escapees of the group too and costs nothing per command.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading

WATCHDOG = r"""
import os, signal, sys, time
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
    signal.signal(s, signal.SIG_IGN)
prefix = ("INK_PROCESS_TAG=" + sys.argv[1] + "-").encode()
me = os.getpid()
while True:
    try:
        if not os.read(0, 4096):
            break
    except InterruptedError:
        continue
    except OSError:
        break
def tagged():
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me):
            continue
        try:
            with open("/proc/" + name + "/environ", "rb") as fh:
                env = fh.read()
        except OSError:
            continue
        if any(e.startswith(prefix) for e in env.split(b"\0")):
            found.append(int(name))
    return found
quiet = 0
for _ in range(200):
    pids = tagged()
    for pid in pids:
        try:
            pgid = os.getpgid(pid)
            if pgid == pid and pgid != os.getpgrp():
                os.killpg(pgid, signal.SIGKILL)
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    quiet = 0 if pids else quiet + 1
    if quiet >= 3:  # three empty scans in a row: a fork in flight has had time to show
        break
    time.sleep(0.005)
"""

_lock = threading.Lock()
_started: tuple[int, int, subprocess.Popen[bytes]] | None = None
"""(our pid, the pipe's write end, the helper) once started."""


def start_watchdog(prefix: str) -> bool:
    """Start the helper for tag `prefix` (once per process; again after a fork). True when
    it runs."""
    global _started
    with _lock:
        if _started is not None and _started[0] == os.getpid():
            return True
        if not sys.platform.startswith("linux") or not os.path.isdir("/proc"):
            return False
        read_end, write_end = os.pipe()  # both close-on-exec (PEP 446)
        try:
            helper = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", WATCHDOG, prefix],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                close_fds=True,
                start_new_session=True,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            )
        except OSError:
            os.close(write_end)
            return False
        finally:
            os.close(read_end)
        # the write end stays open for our whole life: its close is the helper's signal
        _started = (os.getpid(), write_end, helper)
        threading.Thread(
            target=_reap, args=(helper,), name="ink-watchdog-reaper", daemon=True
        ).start()
        return True


def _reap(helper: subprocess.Popen[bytes]) -> None:
    # This thread only waits: the exit signals go to a thread that can run their handler
    # (the kernel may hand a process-directed signal to any thread that does not block it).
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    with contextlib.suppress(ChildProcessError, OSError):
        helper.wait()


def watchdog_pid() -> int | None:
    """The helper's pid (tests), or None when none runs."""
    return _started[2].pid if _started is not None else None

"""No process outlives the server: `install_exit_cleanup` kills running calls' whole trees.

A real Python process runs a bash call (a child in the group, a `setsid` escapee, a
double-forked one), then is stopped by SIGTERM, SIGINT, or ends normally at stdin EOF.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ink_ls.tools import _procfs
from tests.unit.tools.proc_checks import running

REPO = Path(__file__).resolve().parents[3]

DRIVER = """
import asyncio, select, sys, threading
from pathlib import Path
from ink_ls.core.signal import NEVER
from ink_ls.tools import _process
from ink_ls.core.tool import ToolContext
from ink_ls.tools.bash import BashParams, BashTool

_process.install_exit_cleanup()
work = Path(sys.argv[1])
command = (
    "sleep 1000 & echo $! >> pids; setsid sleep 1000 & echo $! >> pids; "
    "( setsid sleep 1000 & echo $! >> pids ); wait"
)
tool = BashTool(log_dir=str(work))
run = tool.execute(BashParams(command=command), NEVER, ToolContext("c", work))
# The call runs on a daemon thread's loop, so only the exit cleanup can stop it.
threading.Thread(target=asyncio.run, args=(run,), daemon=True).start()
pids = work / "pids"
while not (pids.exists() and len(pids.read_text().split()) >= 3):
    threading.Event().wait(0.01)
print("READY", flush=True)
# Wait for stdin's end in short steps: the kernel may hand SIGTERM to another thread, and a
# Python handler runs only when the main thread runs (the server's asyncio loop wakes for it).
while not select.select([sys.stdin], [], [], 0.05)[0]:
    pass
sys.stdin.read()
"""


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "stdin EOF"])
def test_exit_cleanup_kills_every_process_of_a_running_call(tmp_path: Path, how: str) -> None:
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(tmp_path)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert driver.stdin is not None and driver.stdout is not None
    pids: list[int] = []
    try:
        assert driver.stdout.readline() == b"READY\n"
        pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
        assert len(pids) == 3 and all(running(p) for p in pids)
        if how == "stdin EOF":
            driver.stdin.close()
        else:
            driver.send_signal(getattr(signal, how))
        returncode = driver.wait(timeout=10)
        assert [p for p in pids if running(p)] == []
        if how == "SIGTERM":
            assert returncode == -signal.SIGTERM  # still dies of the signal, as before
        if how == "stdin EOF":
            assert returncode == 0
    finally:
        driver.kill()
        driver.wait()
        for stream in (driver.stdin, driver.stdout, driver.stderr):
            if stream is not None:
                stream.close()
        for pid in pids:
            if running(pid):
                os.kill(pid, signal.SIGKILL)
            # Killed children of the dead driver may have been re-parented to this process.
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


HUNTER = """
import os, sys
from pathlib import Path
from ink_ls.tools import _process

_process.install_exit_cleanup(watchdog=False)  # the signal handler alone must be enough
env = dict(os.environ)
print("READY", flush=True)
while True:  # nothing but spawns: a signal lands at a random point of one
    _process.spawn("sleep " + sys.argv[1], cwd=Path("."), env=env)
"""


def _sleepers(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmdline[:2] == [b"sleep", marker.encode()] and running(int(entry.name)):
                found.append(int(entry.name))
    return found


def test_sigterm_during_spawn_leaves_no_process(tmp_path: Path) -> None:
    """Hunts the race of a SIGTERM landing between a command's fork and its tracking (the
    child escaped the exit cleanup): 25 rounds, each signalled at a random point of a loop
    that does nothing but spawn."""
    import random
    import time

    marker = f"600.{os.getpid()}{random.randrange(10**6)}"
    survivors: list[int] = []
    try:
        for _ in range(25):
            hunter = subprocess.Popen(
                [sys.executable, "-c", HUNTER, marker],
                cwd=tmp_path,
                env={**os.environ, "PYTHONPATH": str(REPO)},
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            assert hunter.stdout is not None
            assert hunter.stdout.readline() == b"READY\n"
            time.sleep(random.uniform(0.0, 0.15))  # the random point: when the signal lands
            hunter.send_signal(signal.SIGTERM)
            assert hunter.wait(timeout=30) == -signal.SIGTERM
            hunter.stdout.close()
            # the handler kills synchronously before dying: survivors now are escapees
            deadline = time.monotonic() + 2.0
            while (survivors := _sleepers(marker)) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert survivors == [], f"sleep {marker} survived SIGTERM of the process: {survivors}"
    finally:
        for pid in _sleepers(marker):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def test_a_dying_process_is_told_apart_from_a_running_one() -> None:
    # A zombie has lost its address space as a SIGKILLed process does before it is reaped:
    # its environment (the tag) can no longer be read, so it must not be called a stray.
    child = subprocess.Popen(["sleep", "60"])
    try:
        assert not _procfs.exiting(child.pid)
        child.kill()
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # a zombie, not reaped
        assert _procfs.exiting(child.pid)
    finally:
        child.kill()
        child.wait()
    assert _procfs.exiting(child.pid)  # gone


LAZY_WATCHDOG = """
import os
from pathlib import Path
from ink_ls.tools import _process, _watchdog

_process.install_exit_cleanup()
before = _watchdog.watchdog_pid()
proc, _ = _process.spawn("true", cwd=Path("."), env=dict(os.environ))
proc.wait()
print(before, _watchdog.watchdog_pid() is not None)
"""


def test_the_watchdog_starts_with_the_first_command_not_before() -> None:
    # a run that starts no command (most `ink-ls run` answers) spawns no helper
    done = subprocess.run(
        [sys.executable, "-c", LAZY_WATCHDOG],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.decode().split() == ["None", "True"]

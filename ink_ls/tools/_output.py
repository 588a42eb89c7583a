"""Command output with bounded memory: per-stream capture, the tail preview, the full-output log.

Each stream keeps a rolling 64 KiB tail in memory (what the preview can show) and its first
10 MiB in an anonymous spool file, and counts every byte and line. Must not: hold more than
that per stream, decide "was it cut" from buffer sizes instead of totals, or name a log file
that was not fully written.

Full-output logs live in one directory per process, `$TMPDIR/ink-ls-<pid>-<random>/` (mode
0700), removed when the process exits (normally or on SIGTERM/SIGINT/SIGHUP); the directories
of processes that died without cleaning up (`kill -9`) are removed by the next ink-ls process
that writes a log. At most `MAX_LOGS` logs are kept per process: the oldest go first.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import tempfile
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

LOG_BYTES = 10 * 1024 * 1024
MAX_LINES = 500
MAX_BYTES = 50 * 1024
PREVIEW_WINDOW = MAX_BYTES + 16
"""Raw bytes the preview decodes: the most it can show, plus room for a character that the
window's start cut (its stray bytes decode to at most 9 bytes at the very front)."""
TAIL_BYTES = 64 * 1024
"""Bytes of a stream kept in memory (at most twice that between trims): the preview's window."""
MAX_LOGS = 100
"""Full-output logs kept per process in the default log directory; older ones are deleted."""
LOG_DIR_PREFIX = "ink-ls-"

_log_dir_lock = threading.Lock()
_log_dir: Path | None = None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    return True


def _remove_stale_dirs(parent: Path) -> None:
    """Remove the log directories of ink-ls processes that are gone (killed with -9)."""
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            name = entry.name
            if not name.startswith(LOG_DIR_PREFIX):
                continue
            pid_text = name[len(LOG_DIR_PREFIX) :].split("-", 1)[0]
            if not pid_text.isdigit() or _pid_alive(int(pid_text)):
                continue
            with contextlib.suppress(OSError):
                if entry.is_dir() and not entry.is_symlink() and entry.stat().st_uid == os.getuid():
                    shutil.rmtree(entry, ignore_errors=True)


def process_log_dir() -> Path:
    """This process's log directory (created on first use, 0700, removed at exit)."""
    global _log_dir
    with _log_dir_lock:
        if _log_dir is not None and _log_dir.is_dir():
            return _log_dir
        parent = Path(tempfile.gettempdir())
        _remove_stale_dirs(parent)
        path = parent / f"{LOG_DIR_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        path.mkdir(mode=0o700)
        if _log_dir is None:
            atexit.register(remove_log_dir)
        _log_dir = path
        return path


def remove_log_dir() -> None:
    """Delete this process's log directory and every log in it (at exit)."""
    global _log_dir
    path, _log_dir = _log_dir, None
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


def _cap_logs(directory: Path, keep: int) -> None:
    """Keep the `keep` newest `ink-output-*.log` files of `directory`."""
    with contextlib.suppress(OSError):
        logs = sorted(directory.glob("ink-output-*.log"), key=lambda p: p.stat().st_mtime_ns)
        for old in logs[: max(len(logs) - keep, 0)]:
            with contextlib.suppress(OSError):
                old.unlink()


def _skip_continuation(data: bytes | bytearray, start: int) -> int:
    """The first index at or after `start` that begins a UTF-8 character (at most 3 steps)."""
    for _ in range(3):
        if start < len(data) and (data[start] & 0xC0) == 0x80:
            start += 1
    return start


class StreamCapture:
    """One stream (stdout or stderr) of one command: totals, tail, spooled head."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.total_bytes = 0
        self.newlines = 0
        self.last_byte = -1
        self._tail = bytearray()
        self._spool: BinaryIO | None = None
        self.saved_bytes = 0
        self.saved_newlines = 0
        self.saved_last = -1
        self.spool_error: str | None = None

    @property
    def total_lines(self) -> int:
        """Lines produced: newlines, plus one for a last line without a newline."""
        return self.newlines + (1 if self.total_bytes and self.last_byte != 0x0A else 0)

    def feed(self, data: bytes | bytearray, n: int | None = None) -> None:
        """Take the first `n` bytes of `data` (all of it by default). Chunks may split anywhere."""
        n = len(data) if n is None else n
        if n <= 0:
            return
        view = memoryview(data)[:n]
        count = data.count(b"\n", 0, n)
        if self._spool is None and self.spool_error is None and len(self._tail) + n > TAIL_BYTES:
            self._start_spool()
        if self._spool is not None and self.saved_bytes < LOG_BYTES:
            keep = min(n, LOG_BYTES - self.saved_bytes)
            try:
                self._spool.write(view[:keep])
                self.saved_bytes += keep
                self.saved_newlines += count if keep == n else data.count(b"\n", 0, keep)
                if keep:
                    self.saved_last = data[keep - 1]
            except OSError as exc:
                self._fail_spool(exc)
        if n >= TAIL_BYTES:
            self._tail[:] = view[n - TAIL_BYTES :]
        else:
            self._tail += view
            if len(self._tail) > 2 * TAIL_BYTES:  # trim rarely: one memmove per 64 KiB
                del self._tail[: len(self._tail) - TAIL_BYTES]
        self.total_bytes += n
        self.newlines += count
        self.last_byte = data[n - 1]

    def _start_spool(self) -> None:
        # Everything so far is still in the tail: it has never been trimmed before this point.
        try:
            self._spool = tempfile.TemporaryFile(prefix="ink-spool-")
            self._spool.write(self._tail)
            self.saved_bytes = len(self._tail)
            self.saved_newlines = self._tail.count(b"\n")
            self.saved_last = self._tail[-1] if self._tail else -1
        except OSError as exc:
            self._fail_spool(exc)

    def _fail_spool(self, exc: OSError) -> None:
        self.spool_error = exc.strerror or str(exc)
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    @property
    def fully_saved(self) -> bool:
        """Whether `copy_to` writes every byte of the stream."""
        if self._spool is None:
            return self.spool_error is None and self.total_bytes == len(self._tail)
        return self.saved_bytes == self.total_bytes

    def copy_to(self, out: BinaryIO) -> tuple[int, int, bool]:
        """Write the saved head (or the whole stream when small) to `out`.

        Returns (bytes written, newlines written, whether the copy ends with a newline).
        """
        if self._spool is None:
            if self.spool_error is not None:
                return 0, 0, True
            out.write(self._tail)
            return len(self._tail), self.newlines, self.last_byte == 0x0A
        self._spool.flush()
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, out, 1 << 20)
        return self.saved_bytes, self.saved_newlines, self.saved_last == 0x0A

    def close(self) -> None:
        """Drop the spool file (anonymous: nothing is left on disk)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def preview(self) -> Preview:
        """The last lines that fit in 500 lines and 50 KiB; cut decided from the totals.

        The 50 KiB are counted after decoding: every invalid byte becomes U+FFFD (three bytes
        in UTF-8), so binary output is measured as the model will get it.
        """
        tail = self._tail
        total = self.total_lines
        end = _content_end(tail)
        # Only the last PREVIEW_WINDOW bytes can be shown: a decoded byte is never shorter
        # than the raw one, so a line reaching back before them is over 50 KiB with what
        # follows it. Decoding and splitting just them keeps the cost flat in the tail size.
        start = max(end - PREVIEW_WINDOW, 0)
        whole = start == 0 and len(tail) == self.total_bytes  # nothing dropped from the front
        lines = tail[start:end].decode("utf-8", errors="replace").split("\n")
        # A window that lost its front starts inside a line: that line is never shown whole.
        candidates = lines if whole else lines[1:]
        size, taken = 0, 0
        for line in reversed(candidates):
            add = len(line.encode("utf-8")) + (1 if taken else 0)
            if taken == MAX_LINES or size + add > MAX_BYTES:
                break
            size, taken = size + add, taken + 1
        if whole and taken == len(lines):
            return Preview("\n".join(lines), 1, total, total, None, False)
        if taken == 0:  # the last line alone is over the byte limit: its last 50 KiB
            last = lines[-1].encode("utf-8")
            start = _skip_continuation(last, max(len(last) - MAX_BYTES, 0))
            return Preview(last[start:].decode("utf-8"), total, total, total, "bytes", True)
        cut_by = "lines" if taken == MAX_LINES else "bytes"
        text = "\n".join(lines[len(lines) - taken :])
        return Preview(text, total - taken + 1, total, total, cut_by, False)


def _content_end(tail: bytearray) -> int:
    return len(tail) - 1 if tail.endswith(b"\n") else len(tail)


@dataclass(frozen=True)
class Preview:
    """What the model sees of one stream; `cut_by` is None when nothing was left out."""

    text: str
    first_line: int
    last_line: int
    total_lines: int
    cut_by: str | None
    partial_line: bool


@dataclass(frozen=True)
class SavedLog:
    """A written log file, or why it could not be written (then `path` is None)."""

    path: str | None
    first_line: dict[str, int]
    incomplete: frozenset[str]
    error: str | None = None


def write_log(
    command: str,
    streams: list[StreamCapture],
    *,
    footer: str | None,
    directory: str | None = None,
) -> SavedLog:
    """Write `ink-output-<uuid>.log` (created exclusively, closed before returning) in
    `directory`, by default this process's log directory (see the module doc).

    Layout: `$ <command>`, then `[stdout]` / `[stderr]` with each saved head, a marker after a
    stream whose copy is incomplete, and `footer` (e.g. the interruption) last.
    """
    if directory is None:
        try:
            default = process_log_dir()
        except OSError as exc:
            return SavedLog(None, {}, frozenset(), exc.strerror or str(exc))
        _cap_logs(default, MAX_LOGS - 1)
        directory = str(default)
    path = os.path.join(directory, f"ink-output-{uuid.uuid4()}.log")
    first_line: dict[str, int] = {}
    incomplete: set[str] = set()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        return SavedLog(None, {}, frozenset(), exc.strerror or str(exc))
    try:
        with open(fd, "wb") as out:
            header = f"$ {command}\n".encode(errors="replace")
            out.write(header)
            line = 1 + header.count(b"\n")
            for stream in streams:
                out.write(f"[{stream.name}]\n".encode())
                first_line[stream.name] = line + 1
                written, newlines, ends_with_newline = stream.copy_to(out)
                line += 1 + newlines
                if written and not ends_with_newline:
                    out.write(b"\n")
                    line += 1
                if not stream.fully_saved:
                    incomplete.add(stream.name)
                    why = stream.spool_error or (
                        f"only the first {written} of {stream.total_bytes} bytes were saved"
                    )
                    out.write(f"[{stream.name} incomplete in this file: {why}]\n".encode())
                    line += 1
            if footer:
                out.write(f"{footer}\n".encode())
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return SavedLog(None, {}, frozenset(), exc.strerror or str(exc))
    return SavedLog(path, first_line, frozenset(incomplete))


def _note(name: str, preview: Preview, log: SavedLog | None) -> str:
    limit = f"{MAX_LINES} line limit" if preview.cut_by == "lines" else "50KB limit"
    if preview.partial_line:
        shown = f"the last 50KB of line {preview.last_line} of {preview.total_lines}"
    else:
        shown = f"lines {preview.first_line}-{preview.last_line} of {preview.total_lines}"
    text = f"[{name}: showing {shown} ({limit})."
    if log is None or log.path is None:
        reason = log.error if log is not None else "not attempted"
        return f"{text} The full output could not be saved: {reason}.]"
    where = f"{name} starts at line {log.first_line[name]}"
    if name in log.incomplete:
        where += f"; only its first {LOG_BYTES // (1024 * 1024)} MiB were saved"
    return f"{text} Full output: {log.path} ({where}); read it with the read tool.]"


def format_output(
    command: str,
    streams: list[StreamCapture],
    *,
    exit_code: int | None,
    interruption: str | None,
    log_dir: str | None = None,
) -> tuple[str, str | None]:
    """The text the model sees, and the log path when one was written.

    Sections `stdout:` / `stderr:` (non-empty streams only) or `(no output)`, a note under each
    cut stream, and `Exit code: <n>` when non-zero.
    """
    previews = [(s, s.preview()) for s in streams]
    log: SavedLog | None = None
    if any(p.cut_by for _, p in previews):
        footer = f"[command interrupted: {interruption}]" if interruption else None
        if footer is None and exit_code is not None:
            footer = f"[exit code: {exit_code}]"
        log = write_log(command, streams, footer=footer, directory=log_dir)
    sections = []
    for stream, preview in previews:
        if stream.total_bytes == 0:
            continue
        section = f"{stream.name}:\n{preview.text}"
        if preview.cut_by:
            section += "\n" + _note(stream.name, preview, log)
        sections.append(section)
    if not sections:
        sections.append("(no output)")
    if exit_code:
        sections.append(f"Exit code: {exit_code}")
    return "\n\n".join(sections), log.path if log else None

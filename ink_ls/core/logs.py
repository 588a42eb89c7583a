"""Log records on stderr as one clean line each; tracebacks go to a details file instead.

Libraries (the MCP and ACP SDKs) log exceptions with their tracebacks; on a user's terminal
or an editor's output panel that is noise and may carry a server's text with escape sequences.
`StderrFormatter` prints every record as one sanitised line and, when it carries a traceback,
names the file that has it: `DetailsHandler` appends those records in full to
`<state dir>/logs/ink-ls.log` (opened on the first such record, restarted past `MAX_DETAILS`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from pathlib import Path

from ink_ls.core.env import state_dir
from ink_ls.core.sanitize import clean_line

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
MAX_DETAILS = 5 * 1024 * 1024
"""Bytes the details file may reach before it is moved to `ink-ls.log.1` and started again."""
MAX_LINE = 2000
TRACEBACK = "Traceback (most recent call last)"
"""Some libraries (pygls) put a formatted traceback into the message text itself."""


def _has_traceback(record: logging.LogRecord) -> bool:
    return (
        bool(record.exc_info or record.stack_info)
        or TRACEBACK in str(record.msg)
        or (TRACEBACK in record.getMessage())
    )


def details_path() -> Path:
    """Where records with a traceback are written in full."""
    return state_dir() / "logs" / "ink-ls.log"


class StderrFormatter(logging.Formatter):
    """One line per record: the message cleaned, an exception as `(Type: text; details in …)`."""

    def __init__(self, details: Path | None) -> None:
        super().__init__(FORMAT)
        self.details = details

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        what = None
        if TRACEBACK in message:  # keep the text before it and the exception's own line
            message, _, trace = message.partition(TRACEBACK)
            what = next((ln for ln in reversed(trace.splitlines()) if ln.strip()), "")
        record.message = message.strip()
        record.asctime = self.formatTime(record, self.datefmt)
        line = clean_line(self.formatMessage(record))
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            what = f"{type(exc).__name__}: {str(exc)}"
        elif record.stack_info and what is None:
            what = "stack"
        if what is not None:
            where = f"; details in {self.details}" if self.details else ""
            line += f" ({clean_line(what.strip())[:300]}{where})"
        return line[:MAX_LINE]


class DetailsHandler(logging.Handler):
    """Appends records that carry a traceback, in full, to `path` (created when first needed)."""

    def __init__(self, path: Path) -> None:
        super().__init__(logging.WARNING)
        self.path = path
        self.setFormatter(logging.Formatter(FORMAT))
        self._write_lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        return _has_traceback(record) and bool(super().filter(record))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record) + "\n"
            with self._write_lock:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with contextlib.suppress(OSError):
                    if self.path.stat().st_size > MAX_DETAILS:
                        os.replace(self.path, self.path.with_name(self.path.name + ".1"))
                fd = os.open(
                    self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600
                )
                with open(fd, "a", encoding="utf-8", errors="replace") as out:
                    out.write(text)
        except Exception:
            self.handleError(record)

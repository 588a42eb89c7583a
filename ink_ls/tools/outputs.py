"""The public face of full-output logs for other packages (MCP results): write a text, or a
stream of bytes, to an `ink-output-<uuid>.log` in this process's log directory.

The same rules as bash output: the first `LOG_BYTES` are kept, at most `MAX_LOGS` logs per
process (the oldest go first), the directory is removed when the process exits.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from dataclasses import dataclass

from ink_ls.tools._output import LOG_BYTES, MAX_LOGS, _cap_logs, process_log_dir

__all__ = ["LOG_BYTES", "OutputLog", "SavedText", "save_text"]


class OutputLog:
    """A log being written: `write` keeps the first `LOG_BYTES` and counts everything."""

    def __init__(self) -> None:
        directory = process_log_dir()
        _cap_logs(directory, MAX_LOGS - 1)
        self.path = str(directory / f"ink-output-{uuid.uuid4()}.log")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        self._file = open(fd, "wb")  # closed by `close` or `discard`
        self.saved = 0
        self.total = 0

    def write(self, data: bytes) -> None:
        """Add `data`; what goes over the cap is counted, not written."""
        room = LOG_BYTES - self.saved
        if room > 0:
            part = data[:room]
            self._file.write(part)
            self.saved += len(part)
        self.total += len(data)

    @property
    def complete(self) -> bool:
        return self.saved == self.total

    def close(self) -> None:
        self._file.close()

    def discard(self) -> None:
        """Close and delete (nothing worth keeping was written)."""
        self._file.close()
        with contextlib.suppress(OSError):
            os.unlink(self.path)


@dataclass(frozen=True)
class SavedText:
    """Where a text was saved (None when it could not be: `error` says why)."""

    path: str | None
    complete: bool
    error: str | None = None


def save_text(text: str) -> SavedText:
    """Save `text` (its first `LOG_BYTES`, UTF-8) to a new output log."""
    try:
        log = OutputLog()
    except OSError as exc:
        return SavedText(None, False, exc.strerror or str(exc))
    try:
        data = text.encode("utf-8", "replace")
        log.write(data)
        log.close()
    except OSError as exc:
        log.discard()
        return SavedText(None, False, exc.strerror or str(exc))
    return SavedText(log.path, log.complete)

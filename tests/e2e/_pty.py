"""`ink-ls run` on a real terminal (a pty) for the e2e tests: the process, and the screen it
draws as text without escape codes."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import re
import struct
import sys
import termios
from collections.abc import AsyncIterator

WAIT = 30.0
_ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    """The master side of a pty running one process; screen text without escape codes."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.raw = bytearray()
        self._changed = asyncio.Event()
        self._closed = False
        asyncio.get_running_loop().add_reader(master, self._read)

    def _read(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the child side closed
            data = b""
        if not data:
            self._closed = True
            asyncio.get_running_loop().remove_reader(self.master)
        self.raw += data
        self._changed.set()

    @property
    def text(self) -> str:
        return _ANSI.sub(b"", bytes(self.raw)).decode("utf-8", "replace")

    async def wait_for(self, needle: str, count: int = 1) -> None:
        async def until() -> None:
            while self.text.count(needle) < count:
                assert not self._closed, f"terminal closed before {needle!r}:\n{self.text}"
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(until(), WAIT)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if not self._closed:
            asyncio.get_running_loop().remove_reader(self.master)
        os.close(self.master)


@contextlib.asynccontextmanager
async def ink_run_on_pty(
    *args: str, env: dict[str, str], columns: int = 200
) -> AsyncIterator[tuple[asyncio.subprocess.Process, Terminal]]:
    """`ink-ls run ARGS` on a fresh pty of 50 rows and `columns` columns; on leaving, the
    process is killed if it still runs and the terminal is closed."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ink_ls", "run", *args,
        stdin=slave, stdout=slave, stderr=slave, env=env,
    )  # fmt: skip
    os.close(slave)
    term = Terminal(master)
    try:
        yield proc, term
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        term.close()

"""`ink-ls run` on a real terminal (a pty): the live view, and `--approval ask` prompting for a
command and for a file change, answered by typing."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import re
import struct
import sys
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.model_server import FakeModelServer, text, tool

WAIT = 30.0
_ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


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


async def test_ask_mode_prompts_on_the_terminal_and_obeys_the_answers(
    fake: FakeModelServer, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake.push(
        tool("bash", {"command": "echo approved > out.txt"}),
        tool("write", {"path": "new.txt", "content": "hello\n"}),
        text("All **done**."),
    )
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    env.update(
        INK_STATE_DIR=str(tmp_path / "state"),
        INK_BASE_URL=fake.base_url,
        INK_MODEL="fake-model",
        TERM="xterm-256color",
        COLUMNS="160",
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ink_ls",
        "run",
        "--cwd",
        str(ws),
        "make the files",
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    term = Terminal(master)
    try:
        await term.wait_for(
            "Run command: echo approved > out.txt  [y]es / [a]lways this session / "
            "[p]roject: always in this project / [N]o:"
        )
        term.type("y\n")
        await term.wait_for(
            "Create new.txt?  [y]es / [a]lways this session / [p]roject: always in this "
            "project / [N]o:"
        )
        assert "+1 hello" in term.text  # the diff is shown before the question
        term.type("n\n")
        assert await asyncio.wait_for(proc.wait(), WAIT) == 0, term.text
        await term.wait_for("completed ·")
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        term.close()
    screen = term.text
    assert (ws / "out.txt").read_text() == "approved\n"
    assert not (ws / "new.txt").exists()
    assert "✓ bash: echo approved > out.txt" in screen
    assert "✗ write new.txt" in screen
    assert "All done." in screen  # markdown rendered
    assert "session s-" in screen
    refusal = fake.wait_requests(3)[2]["messages"][-1]
    assert refusal["role"] == "tool"
    assert refusal["content"] == 'Tool "write" blocked by user: the user rejected this change'
    assert json.dumps(fake.requests[0]["messages"][1]) == (
        '{"role": "user", "content": "make the files"}'
    )

"""`ink-ls run` keeps the terminal ours: escape sequences in the model's text, a tool's title, a
tool's error, an MCP server's error and its stderr arrive at the terminal (a pty) as visible
text, never as the sequence; markup in a piped answer is printed, not parsed; `--json` carries
no raw control characters. Assertions are on the bytes the terminal received."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e._pty import ink_run_on_pty
from tests.fakes.model_server import FakeModelServer, text, tool

PY = sys.executable
REPO = Path(__file__).resolve().parents[2]
WAIT = 60.0

OSC52 = "\x1b]52;c;Y2xpcGJvYXJk\x07"
OSC0 = "\x1b]0;owned-title\x07"
OSC8 = "\x1b]8;;http://evil.example/\x1b\\click me\x1b]8;;\x1b\\"
CSI = "\x1b[2J\x1b[5;5H\x1b[3A"
C1 = "\x9b2J\x9d0;c1-title\x9c"
ATTACK = f"{OSC52}{OSC0}{OSC8}{CSI}{C1}"
ANSWER = f"Answer begins. {ATTACK} safe line\rEVIL overwrite. [/i] [bold]not bold[/bold] end."
FORBIDDEN = [
    b"\x1b]52;",
    b"\x1b]0;",
    b"\x1b]8;",
    b"\x1b[2J",
    b"\x1b[5;5H",
    b"\x1b[3A",
    "\x9b".encode(),  # C1 as UTF-8 (a lone 0x9b byte is part of other characters, e.g. ␛)
    "\x9d".encode(),
    b"line\rEVIL",
]
"""What must never reach the terminal (the live view's own moves are other sequences)."""


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


def _hostile(*extra: str) -> dict[str, object]:
    return {"command": PY, "args": ["-m", "tests.fakes.mcp_hostile", *extra], "cwd": str(REPO)}


def _env(tmp_path: Path, fake: FakeModelServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update(
        INK_STATE_DIR=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        INK_BASE_URL=fake.base_url,
        INK_MODEL="fake-model",
        PYTHONPATH=str(REPO),
        TERM="xterm-256color",
        COLUMNS="200",
    )
    config = tmp_path / "config" / "ink-ls" / "mcp.json"
    config.parent.mkdir(parents=True)
    servers = {"h": _hostile(), "dead": _hostile("--fail-start", "--stderr", f"dying {ATTACK}\n")}
    config.write_text(json.dumps({"mcpServers": servers}))
    return env


def _assert_clean(raw: bytes) -> None:
    for bad in FORBIDDEN:
        assert bad not in raw, f"{bad!r} reached the terminal"


async def test_escape_sequences_reach_the_pty_as_visible_text(
    fake: FakeModelServer, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    fake.push(
        tool("read", {"path": f"missing{OSC0}{CSI}.txt"}),
        tool("mcp__h__shout", {"text": f"mcp failed {OSC52}{C1}"}),
        text(ANSWER),
    )
    async with ink_run_on_pty(
        "--cwd", str(ws), "--approval", "auto", "go", env=_env(tmp_path, fake)
    ) as (proc, term):
        assert await asyncio.wait_for(proc.wait(), WAIT) == 0, term.text
        await term.wait_for("completed ·")
    raw = bytes(term.raw)
    _assert_clean(raw)
    screen = term.text  # without the view's own styles and moves
    # the MCP server's stderr, in its start failure
    assert "MCP server dead: failed:" in screen and "dying ␛]52;c;Y2xpcGJvYXJk␇" in screen
    # the read call's title and its error
    assert "✗ read missing␛]0;owned-title␇␛[2J␛[5;5H␛[3A.txt" in screen
    # the MCP tool's error text
    assert "mcp failed ␛]52;c;Y2xpcGJvYXJk␇<U+009B>2J<U+009D>0;c1-title<U+009C>" in screen
    # the answer: every sequence shown, markup as typed
    assert "␛]8;;http://evil.example/␛\\click me␛]8;;␛\\" in screen
    assert "[/i] [bold]not bold[/bold] end." in screen


async def _piped(
    tmp_path: Path, fake: FakeModelServer, *args: str, prompt: str = "go"
) -> tuple[int, bytes, bytes]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    proc = await asyncio.create_subprocess_exec(
        PY,
        "-m",
        "ink_ls",
        "run",
        "--cwd",
        str(ws),
        *args,
        "-",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=_env(tmp_path, fake),
    )
    out, err = await asyncio.wait_for(proc.communicate(prompt.encode()), WAIT)
    assert proc.returncode is not None
    return proc.returncode, out, err


async def test_piped_answer_with_markup_is_printed_as_written(
    fake: FakeModelServer, tmp_path: Path
) -> None:
    fake.push(text(ANSWER))
    code, out, err = await _piped(tmp_path, fake)
    assert code == 0, err
    _assert_clean(out + err)
    printed = out.decode()
    assert "Answer begins." in printed
    assert "[/i] [bold]not bold[/bold] end." in printed
    assert "safe line\nEVIL overwrite." in printed
    assert "dying ␛]52;c;Y2xpcGJvYXJk␇" in err.decode()


async def test_json_output_escapes_every_control(fake: FakeModelServer, tmp_path: Path) -> None:
    fake.push(text(ANSWER + " \u2028 \u202e"))
    code, out, err = await _piped(tmp_path, fake, "--json")
    assert code == 0, err
    for char in ("\x1b", "\x9b", "\x9d", "\x9c", "\r", "\u2028", "\u202e"):
        assert char.encode() not in out, f"{char!r} raw in --json output"
    events = [json.loads(line) for line in out.decode().splitlines()]
    (end,) = [e for e in events if e["type"] == "message_end"]
    assert end["message"]["text"] == ANSWER + " \u2028 \u202e"  # escaped, not altered

"""`ink-ls run` on a real terminal (a pty): the live view, and `--approval ask` prompting for a
command and for a file change, answered by typing."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e._pty import WAIT, ink_run_on_pty
from tests.fakes.model_server import FakeModelServer, text, tool


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


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
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    env.update(
        INK_STATE_DIR=str(tmp_path / "state"),
        INK_BASE_URL=fake.base_url,
        INK_MODEL="fake-model",
        TERM="xterm-256color",
        COLUMNS="160",
    )
    async with ink_run_on_pty("--cwd", str(ws), "make the files", env=env, columns=160) as (
        proc,
        term,
    ):
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

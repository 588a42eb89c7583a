"""`ink-ls run` on a real terminal (a pty) with permission rules and plan mode: "[p]roject:
always in this project" saved and obeyed by a second run, and a plan approved on the terminal
continuing the same run in auto mode (nothing changed before the approval)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e._pty import Terminal, ink_run_on_pty
from tests.fakes.model_server import FakeModelServer, text, tool

WAIT = 30.0


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git" / "info").mkdir(parents=True)
    return root


@pytest.fixture
def env(tmp_path: Path, fake: FakeModelServer) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    out.update(
        INK_STATE_DIR=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        INK_BASE_URL=fake.base_url,
        INK_MODEL="fake-model",
        TERM="xterm-256color",
        COLUMNS="200",
    )
    return out


Start = Callable[..., Awaitable[tuple[asyncio.subprocess.Process, Terminal]]]


@pytest.fixture
async def on_terminal(env: dict[str, str], ws: Path) -> AsyncIterator[Start]:
    """Start `ink-ls run ARGS` on a fresh pty."""
    async with contextlib.AsyncExitStack() as stack:

        async def start(*args: str) -> tuple[asyncio.subprocess.Process, Terminal]:
            return await stack.enter_async_context(ink_run_on_pty("--cwd", str(ws), *args, env=env))

        yield start


async def test_always_in_this_project_is_saved_and_obeyed_by_the_next_run(
    fake: FakeModelServer, ws: Path, env: dict[str, str], on_terminal: Start
) -> None:
    fake.push(tool("bash", {"command": "echo one >> log.txt"}), text("done"))
    proc, term = await on_terminal("log once")
    await term.wait_for("[p] saves Bash(echo one), Edit(./log.txt) to .ink/settings.local.json")
    await term.wait_for("[p]roject: always in this project / [N]o:")
    term.type("p\n")
    assert await asyncio.wait_for(proc.wait(), WAIT) == 0, term.text
    assert (ws / "log.txt").read_text() == "one\n"
    local = ws / ".ink" / "settings.local.json"
    assert json.loads(local.read_text()) == {
        "permissions": {"allow": ["Bash(echo one)", "Edit(./log.txt)"]}
    }
    assert "/.ink/settings.local.json" in (ws / ".git/info/exclude").read_text().splitlines()

    # the second run has no terminal and asks: the saved rules decide the same command,
    # once the workspace is trusted (the local file is the project's)
    fake.push(tool("bash", {"command": "echo one >> log.txt"}), text("done"))
    second = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ink_ls", "run", "--cwd", str(ws), "--approval", "ask",
        "--trust-workspace", "--json", "log again",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    out, err = await asyncio.wait_for(second.communicate(), WAIT)
    assert second.returncode == 0, err.decode()
    assert (ws / "log.txt").read_text() == "one\none\n"
    # untrusted, the local file's allow rules are ignored: the question has no terminal
    fake.push(tool("bash", {"command": "echo one >> log.txt"}))
    third = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ink_ls", "run", "--cwd", str(ws), "--approval", "ask",
        "--json", "log again",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    out, err = await asyncio.wait_for(third.communicate(), WAIT)
    assert third.returncode == 2, err.decode()
    assert (ws / "log.txt").read_text() == "one\none\n"


async def test_plan_mode_changes_nothing_until_approved_then_the_run_goes_on(
    fake: FakeModelServer, ws: Path, on_terminal: Start
) -> None:
    (ws / "app.py").write_text("print('hello')\n")
    todos = [
        {"content": "read app.py", "status": "completed"},
        {"content": "change the greeting", "status": "in_progress"},
        {"content": "run it", "status": "pending"},
    ]
    fake.push(
        tool("todo_write", {"todos": todos}),
        tool("read", {"path": "app.py"}),
        tool("edit", {"path": "app.py", "edits": [{"old_text": "hello", "new_text": "bye"}]}),
        text("## Plan\n1. Change the greeting in app.py to bye."),
        tool("edit", {"path": "app.py", "edits": [{"old_text": "hello", "new_text": "bye"}]}),
        text("Changed the greeting."),
    )
    proc, term = await on_terminal("--approval", "plan", "say bye instead")
    await term.wait_for("Approve the plan and continue in [a]sk / a[u]to mode, or [N]o:")
    assert (ws / "app.py").read_text() == "print('hello')\n"  # nothing before the approval
    assert "Change the greeting in app.py to bye." in term.text
    # the to-do list is a checklist under its call (todo_write runs in plan mode)
    assert "✓ to-do list (1/3 done)" in term.text
    assert "  ☑ read app.py\n  ◐ change the greeting\n  ☐ run it" in term.text
    term.type("u\n")
    assert await asyncio.wait_for(proc.wait(), WAIT) == 0, term.text
    await term.wait_for("Changed the greeting.")
    assert (ws / "app.py").read_text() == "print('bye')\n"
    requests = fake.wait_requests(5)
    assert "Plan mode is on" in requests[0]["messages"][0]["content"]
    refused = [m for m in requests[3]["messages"] if m["role"] == "tool"][-1]
    assert refused["content"].startswith('Tool "edit" blocked by plan mode: plan mode: only')
    approved = requests[4]["messages"]
    assert "Plan mode is on" not in approved[0]["content"]
    assert approved[-1] == {
        "role": "user",
        "content": "The user approved the plan (approval mode is now auto). Carry it out now, "
        "step by step, keeping the to-do list current.",
    }


async def test_plan_mode_without_a_terminal_prints_the_plan_and_exits_0(
    fake: FakeModelServer, ws: Path, env: dict[str, str]
) -> None:
    (ws / "app.py").write_text("print('hello')\n")
    fake.push(
        tool("bash", {"command": "sed -i s/hello/bye/ app.py"}),
        text("1. Replace hello with bye in app.py."),
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ink_ls", "run", "--cwd", str(ws), "--approval", "plan",
        "say bye",
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), WAIT)
    assert proc.returncode == 0, err.decode()
    assert "1. Replace hello with bye in app.py." in out.decode()
    assert (ws / "app.py").read_text() == "print('hello')\n"

"""Hooks in the language server: a PreToolUse hook from the user's settings file shows in the
editor's progress while it runs and its refusal reaches the model; a hanging one is killed."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types

from ink_ls.core.tool import short_line
from tests.e2e.conftest import WAIT, Starter, processes_running, tool_results, wait_gone
from tests.fakes.model_server import FakeModelServer, text, tool

PY = sys.executable


def user_settings(tmp_path: Path, hooks: dict[str, Any]) -> dict[str, str]:
    """A user settings file with `hooks`; the env that points the server at it."""
    config = tmp_path / "config"
    (config / "ink-ls").mkdir(parents=True)
    (config / "ink-ls" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return {"XDG_CONFIG_HOME": str(config)}


def reports(client: Any) -> list[str]:
    return [
        v.message
        for values in client.progress_reports.values()
        for v in values
        if isinstance(v, types.WorkDoneProgressReport) and v.message
    ]


async def test_a_pre_tool_use_hook_shows_in_progress_and_blocks_rm(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    guard = tmp_path / "guard.py"
    guard.write_text(
        "import json, sys\n"
        "p = json.load(sys.stdin)\n"
        "if p['tool_input']['command'].startswith('rm '):\n"
        "    print('rm is refused by the team hook', file=sys.stderr); sys.exit(2)\n"
    )
    command = f"{PY} {guard}"
    env = user_settings(
        tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": command}]}]}
    )
    (workspace / "data.txt").write_text("keep\n")
    model.push(tool("bash", {"command": "rm data.txt"}), text("it was refused"))
    client = await start(approval="auto", env=env)
    result = await client.prompt("delete data.txt")
    assert result["stopReason"] == "end_turn"
    assert (workspace / "data.txt").read_text() == "keep\n"
    assert tool_results(model.requests[1]) == [
        'Tool "bash" blocked by PreToolUse hook: rm is refused by the team hook'
    ]
    shown = reports(client)
    line = f"hook PreToolUse: {short_line(command, 60)}"  # long commands are cut
    assert shown.index(line) < shown.index(f"{line} — blocked: rm is refused by the team hook")


async def test_a_hanging_hook_is_killed_at_its_timeout_and_the_call_runs(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    hang = "echo $$ > hook.pid; exec sleep 300"
    env = user_settings(
        tmp_path,
        {"PreToolUse": [{"matcher": "", "hooks": [{"command": hang, "timeout": 1}]}]},
    )
    model.push(tool("bash", {"command": "echo ran"}), text("ok"))
    client = await start(approval="auto", env=env)
    await client.prompt("go")
    assert tool_results(model.requests[1]) == ["stdout:\nran"]
    assert f"hook PreToolUse: {hang} — timed out and was killed (not blocking)" in reports(client)
    pid = int((workspace / "hook.pid").read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text()


async def test_cancelling_the_turn_kills_a_hanging_hook(
    start: Starter, model: FakeModelServer, tmp_path: Path
) -> None:
    marker = f"61.{os.getpid()}42"
    hang = f"sleep {marker}"
    env = user_settings(
        tmp_path,
        {"UserPromptSubmit": [{"hooks": [{"command": hang, "timeout": 600}]}]},
    )
    client = await start(approval="auto", env=env)
    task = asyncio.ensure_future(client.prompt("hello"))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not processes_running(marker):
        assert loop.time() < deadline, "the hook never started"
        await asyncio.sleep(0.02)
    (token,) = client.progress_reports
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(task, WAIT)
    await wait_gone(marker)
    assert model.requests == []
    assert result["stopReason"] == "cancelled"
    assert f"hook UserPromptSubmit: {hang} — killed by the cancel" in reports(client)

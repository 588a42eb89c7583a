"""The editor's own `ink.hooks` and `ink.permissions` over real stdio (both capability
presets): given at start (`initializationOptions.ink`) they apply to the first turn; changed with
`workspace/didChangeConfiguration` they apply to the next turn, and an emptied one stops
applying (the clients send `{}` for a setting the user cleared)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.e2e.conftest import SECRET, InkClient, Starter, tool_results
from tests.e2e.test_server_hooks import reports
from tests.fakes.model_server import FakeModelServer, text, tool


def guard(tmp_path: Path) -> str:
    """A PreToolUse hook command that refuses `rm` (exit 2, reason on stderr)."""
    script = tmp_path / "guard.py"
    script.write_text(
        "import json, sys\n"
        "p = json.load(sys.stdin)\n"
        "if p['tool_input']['command'].startswith('rm '):\n"
        "    print('rm is refused by the editor hook', file=sys.stderr); sys.exit(2)\n"
    )
    return f"{sys.executable} {script}"


def ink(model: FakeModelServer, **extra: Any) -> dict[str, Any]:
    return {
        "model": {"baseUrl": model.base_url, "model": "fake-model", "apiKey": SECRET},
        "approval": "auto",
        **extra,
    }


def change(client: InkClient, settings: dict[str, Any]) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"ink": settings})
    )


async def test_ink_hooks_at_start_block_rm_and_show_in_progress(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    command = guard(tmp_path)
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
    }
    (workspace / "data.txt").write_text("keep\n")
    model.push(tool("bash", {"command": "rm data.txt"}), text("refused"))
    client = await start(ink=ink(model, hooks=hooks), env={"XDG_CONFIG_HOME": str(tmp_path / "c")})
    await client.prompt("delete data.txt")
    assert tool_results(model.wait_requests(2)[1]) == [
        'Tool "bash" blocked by PreToolUse hook: rm is refused by the editor hook'
    ]
    assert (workspace / "data.txt").exists()
    assert any(r.startswith("hook PreToolUse: ") and "blocked" in r for r in reports(client))


async def test_ink_hooks_and_permissions_changed_at_run_time_apply_to_the_next_turn(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    command = guard(tmp_path)
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
    }
    for name in ("a.txt", "b.txt", "c.txt"):
        (workspace / name).write_text("x\n")
    model.push(
        tool("bash", {"command": "rm a.txt"}),  # no hook yet: runs
        text("one"),
        tool("bash", {"command": "rm b.txt"}),  # the hook from didChangeConfiguration refuses
        text("two"),
        tool("bash", {"command": "rm c.txt"}),  # hook cleared, a deny rule instead
        text("three"),
    )
    client = await start(ink=ink(model), env={"XDG_CONFIG_HOME": str(tmp_path / "c")})
    await client.prompt("one")
    assert not (workspace / "a.txt").exists()

    change(client, ink(model, hooks=hooks))
    await client.prompt("two")
    assert tool_results(model.wait_requests(4)[3]) == [
        'Tool "bash" blocked by PreToolUse hook: rm is refused by the editor hook'
    ]
    assert (workspace / "b.txt").exists()

    change(client, ink(model, hooks={}, permissions={"deny": ["Bash(rm c.txt)"]}))
    await client.prompt("three")
    (denied,) = tool_results(model.wait_requests(6)[5])
    assert denied.startswith(
        'Tool "bash" blocked by permission rule: deny rule "Bash(rm c.txt)" (permissions.deny[0] '
        "in editor settings (ink.permissions, ink.hooks))"
    ), denied
    assert (workspace / "c.txt").exists()
    blocked = [r for r in reports(client) if r.startswith("hook PreToolUse") and "—" in r]
    assert len(blocked) == 1  # the cleared hook did not run on the third turn

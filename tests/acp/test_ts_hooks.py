"""Hook runs over ACP, driven by the official TypeScript SDK (`hooks.mjs`) against a real
`ink-ls --acp`: a UserPromptSubmit hook and a PreToolUse hook that blocks `rm` with exit 2 each
show as an `execute` tool call while they run, then completed / failed with the hook's message;
the model still reads the refusal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.acp.conftest import SERVER
from tests.acp.test_ts_client import HERE, node
from tests.fakes.model_server import FakeModelServer, text, tool


def hook_updates(updates: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(id, status, command or content text) of the hook calls, in arrival order."""
    out = []
    for u in updates:
        call_id = u.get("toolCallId", "")
        if not call_id.startswith("ink-hook-"):
            continue
        if u["sessionUpdate"] == "tool_call":
            assert u["kind"] == "execute"
            assert u["title"].startswith(f"hook {u['rawInput']['hookEvent']}: ")
            out.append((call_id, u["status"], u["rawInput"]["command"]))
        else:
            out.append((call_id, u["status"], u["content"][0]["content"]["text"]))
    return out


def test_hook_runs_are_tool_call_updates_for_the_typescript_sdk(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    guard = tmp_path / "guard.py"
    guard.write_text(
        "import json, sys\n"
        "p = json.load(sys.stdin)\n"
        "if p['tool_input']['command'].startswith('rm '):\n"
        "    print('rm is refused by the team hook', file=sys.stderr); sys.exit(2)\n"
    )
    greet = f"{sys.executable} -c \"print('team context')\""
    config = tmp_path / "config" / "ink-ls"
    config.mkdir(parents=True)
    hooks = {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": greet}]}],
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": f"{sys.executable} {guard}"}],
            }
        ],
    }
    (config / "settings.json").write_text(json.dumps({"hooks": hooks}))
    acp_env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    (workspace / "data.txt").write_text("keep\n")
    model.push(tool("bash", {"command": "rm data.txt"}), text("it was refused"))
    done = subprocess.run(
        [node(), str(HERE / "hooks.mjs"), str(workspace), "--", *SERVER],
        env=acp_env,
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, f"hooks.mjs failed:\n{done.stderr[-4000:]}"
    updates = json.loads(done.stdout.strip().splitlines()[-1])["updates"]
    assert hook_updates(updates) == [
        ("ink-hook-1", "in_progress", greet),
        ("ink-hook-1", "completed", "done"),
        ("ink-hook-2", "in_progress", f"{sys.executable} {guard}"),
        ("ink-hook-2", "failed", "blocked: rm is refused by the team hook"),
    ]
    assert (workspace / "data.txt").read_text() == "keep\n"
    refused = [m for m in model.requests[1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert refused == 'Tool "bash" blocked by PreToolUse hook: rm is refused by the team hook'

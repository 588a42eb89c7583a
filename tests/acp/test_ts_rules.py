"""Permission rules and plan mode over ACP, driven by the official TypeScript SDK (`rules.mjs`)
against a real `ink-ls --acp`: rules from the user's file and the project's (untrusted: its deny
applies), "Always in this project" offered and saved, and Plan mode approved in the same prompt."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.acp.conftest import SERVER
from tests.acp.test_ts_client import HERE, node
from tests.fakes.model_server import FakeModelServer, text, tool


def test_rules_and_plan_mode_with_the_typescript_sdk(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    config = tmp_path / "config" / "ink-ls"
    config.mkdir(parents=True)
    (config / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(touch user-allowed.txt)"]}})
    )
    (workspace / ".ink").mkdir()
    (workspace / ".ink/settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}})
    )
    (workspace / "keep.txt").write_text("x")
    acp_env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    edit = {"path": "app.py", "edits": [{"oldText": "disk", "newText": "bye"}]}
    model.push(
        tool("bash", {"command": "touch user-allowed.txt"}),
        tool("bash", {"command": "sh -c 'rm -f keep.txt'"}),
        tool("bash", {"command": "touch asked.txt"}),
        text("done"),
        tool("todo_write", {"todos": [{"content": "change app.py", "status": "pending"}]}),
        tool("edit", edit),
        text("Plan: change the greeting."),
        tool("edit", edit),
        text("Changed."),
    )
    done = subprocess.run(
        [node(), str(HERE / "rules.mjs"), str(workspace), "--", *SERVER],
        env=acp_env,
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, f"rules.mjs failed:\n{done.stderr[-4000:]}"
    asked = json.loads(done.stdout.strip().splitlines()[-1])["permissions"]
    assert asked == [
        "Run command: touch asked.txt",
        f"Trust the workspace {workspace.resolve()}?",  # its files changed: asked again
        "Approve the plan?",
    ]
    denied = [m for m in model.requests[2]["messages"] if m["role"] == "tool"][-1]["content"]
    assert denied.startswith('Tool "bash" blocked by permission rule: deny rule "Bash(rm:*)"')
    refused = [m for m in model.requests[6]["messages"] if m["role"] == "tool"][-1]["content"]
    assert refused.startswith('Tool "edit" blocked by plan mode')

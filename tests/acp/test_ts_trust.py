"""A cloned repository through `ink-ls --acp`, driven by the official TypeScript SDK client
(`scripted.mjs`): a link planted at a temp name (or a workspace file linked outside) never
redirects a write, and the workspace's `.mcp.json` runs only once the workspace is trusted —
asked with `session/request_permission` showing the command line (also in mode auto),
remembered, asked again after a change, or stated with `_meta.ink.trustWorkspace`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.acp.conftest import REPO, SERVER
from tests.acp.test_ts_client import node
from tests.fakes.model_server import FakeModelServer, text, tool

HERE = Path(__file__).resolve().parent
PY = sys.executable


def _run(
    scenario: dict[str, Any], env: dict[str, str], tmp_path: Path, *extra: str
) -> dict[str, Any]:
    assert (HERE / "node_modules/@agentclientprotocol/sdk").is_dir(), (
        "the TypeScript ACP SDK is not installed: run tests/acp/setup-tests"
    )
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    done = subprocess.run(
        [node(), str(HERE / "scripted.mjs"), str(path), "--", *SERVER, *extra],
        env=env,
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, f"scripted.mjs failed:\n{done.stderr[-4000:]}"
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def _failed_outputs(report: dict[str, Any]) -> list[str]:
    return [
        json.dumps(u.get("content") or u.get("rawOutput"))
        for u in report["updates"]
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "failed"
    ]


def test_a_planted_link_never_redirects_a_write(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    outside, other = tmp_path / "outside.txt", tmp_path / "other.txt"
    outside.write_text("not yours\n")
    other.write_text("not yours either\n")
    (workspace / ".app.py.ink-tmp").symlink_to(outside)  # the old fixed temp name
    (workspace / "notes.txt").symlink_to(other)
    model.push(
        tool("edit", {"path": "app.py", "edits": [{"oldText": "disk", "newText": "edited"}]}),
        tool("write", {"path": "notes.txt", "content": "overwritten\n"}),
        text("done"),
    )
    report = _run(
        {"cwd": str(workspace), "mode": "auto", "prompts": ["change the files"]},
        acp_env,
        tmp_path,
    )
    assert report["stops"] == ["end_turn"]
    assert outside.read_text() == "not yours\n" and other.read_text() == "not yours either\n"
    app = workspace / "app.py"
    assert app.read_text() == "print('edited')\n" and not app.is_symlink()
    assert sorted(p.name for p in workspace.iterdir()) == [".app.py.ink-tmp", "app.py", "notes.txt"]
    edited, refused = [m for m in model.requests[2]["messages"] if m["role"] == "tool"]
    assert edited["content"].startswith("Edited app.py")
    assert refused["content"] == (
        f"Error writing notes.txt: notes.txt is a link to {other}, outside the workspace; "
        f"nothing was written. To change that file, name {other} itself (the user is asked "
        "about files outside the workspace)"
    )


def _mcp_tools(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request["tools"] if t["function"]["name"][:5] == "mcp__"]


def test_the_workspace_servers_wait_for_trust_in_every_mode(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    acp_env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    mark = tmp_path / "started"
    marker = {"command": PY, "args": ["-c", f"open({str(mark)!r}, 'w').write('ran')"]}
    repo = {"command": PY, "args": ["-m", "tests.fakes.mcp_hostile"], "cwd": str(REPO)}
    config = workspace / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"mark": marker, "repo": repo}}))
    base = {"cwd": str(workspace), "mode": "auto", "prompts": ["hi"]}
    trust_title = f"Trust the workspace {workspace}?"

    model.push(text("one"))
    report = _run({**base, "answers": {"Trust the workspace": "reject"}}, acp_env, tmp_path)
    [asked] = report["permissions"]  # auto mode asks too (it used to never start them)
    assert asked["title"] == trust_title
    shown = asked["content"][0]["content"]["text"]
    assert f"MCP server repo: {PY} -m tests.fakes.mcp_hostile (in {REPO})" in shown
    assert not mark.exists() and _mcp_tools(model.requests[0]) == []

    model.push(text("two"), text("three"))
    report = _run({**base, "answers": {"Trust the workspace": "allow_always"}}, acp_env, tmp_path)
    assert len(report["permissions"]) == 1 and mark.read_text() == "ran"
    assert "mcp__repo__echo" in _mcp_tools(model.requests[1])
    report = _run(base, acp_env, tmp_path)  # remembered: no question
    assert report["permissions"] == [] and "mcp__repo__echo" in _mcp_tools(model.requests[2])

    config.write_text(json.dumps({"mcpServers": {"repo": {**repo, "args": [*repo["args"], "-x"]}}}))
    model.push(text("four"))
    report = _run({**base, "answers": {"Trust the workspace": "reject"}}, acp_env, tmp_path)
    [asked] = report["permissions"]  # the file changed: asked again, with the new command
    assert "tests.fakes.mcp_hostile -x" in asked["content"][0]["content"]["text"]
    assert _mcp_tools(model.requests[3]) == []

    config.write_text(json.dumps({"mcpServers": {"repo": repo}}))
    mark.unlink()
    model.push(tool("mcp__repo__echo", {"text": "hi"}), text("five"))
    meta = {"ink": {"trustWorkspace": True}}
    report = _run({**base, "meta": meta}, acp_env, tmp_path)
    assert report["permissions"] == [] and report["stops"] == ["end_turn"]
    [result] = [m for m in model.requests[5]["messages"] if m["role"] == "tool"]
    assert result["content"] == "echo: hi"


def test_the_flag_trusts_and_an_outside_agents_md_is_not_sent(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    acp_env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    mark = tmp_path / "started"
    marker = {"command": PY, "args": ["-c", f"open({str(mark)!r}, 'w').write('ran')"]}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"mark": marker}}))
    private = tmp_path / "private.md"
    private.write_text("PRIVATE-NOTES-4417\n")
    (workspace / "AGENTS.md").symlink_to(private)
    model.push(text("hello"))
    report = _run(
        {"cwd": str(workspace), "prompts": ["hi"]}, acp_env, tmp_path, "--trust-workspace"
    )
    assert report["stops"] == ["end_turn"] and report["permissions"] == []
    assert mark.read_text() == "ran"  # trusted by the flag: started without a question
    assert "PRIVATE-NOTES-4417" not in json.dumps(model.requests)

"""Hooks in `ink-ls run`, as real processes: Claude Code's settings files and hook scripts,
a scripted model on loopback, and what the model and the user see."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_cli_run import SECRET, env, fake, ink, ws  # noqa: F401
from tests.fakes.model_server import FakeModelServer, text, tool

WAIT = 30.0
PY = sys.executable
RUFF = str(Path(sys.executable).with_name("ruff"))

BLOCK_RM = """
import json, os, sys
payload = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "seen.jsonl"), "a") as fh:
    fh.write(json.dumps({"payload": payload, "env": {
        k: os.environ.get(k) for k in ("INK_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "INK_API_KEY")
    }}) + "\\n")
if payload["tool_name"] == "Bash" and payload["tool_input"]["command"].startswith("rm "):
    print("rm is not allowed in this repository; move files to ./trash instead", file=sys.stderr)
    sys.exit(2)
"""


def settings(ws: Path, hooks: dict[str, Any], where: str = ".claude/settings.json") -> None:
    path = ws / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))


def script(ws: Path, name: str, source: str) -> str:
    """A hook script in the workspace, and the command that runs it (Claude Code style)."""
    path = ws / ".claude" / "hooks" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return f'{PY} "$CLAUDE_PROJECT_DIR/.claude/hooks/{name}"'


def tool_results(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def user_texts(request: dict[str, Any]) -> list[str]:
    return [json.dumps(m["content"]) for m in request["messages"] if m["role"] == "user"]


def one(matcher: str, command: str, timeout: float | None = None) -> list[dict[str, Any]]:
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    return [{"matcher": matcher, "hooks": [hook]}]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")


async def test_an_existing_claude_settings_hook_blocks_rm_and_the_model_reads_why(
    ink: Any, fake: FakeModelServer, ws: Path
) -> None:
    (ws / "important.txt").write_text("keep me\n")
    settings(ws, {"PreToolUse": one("Bash", script(ws, "block_rm.py", BLOCK_RM))})
    fake.push(tool("bash", {"command": "rm important.txt"}), text("I could not delete it."))
    run = await ink("--approval", "auto", "--trust-workspace", "--json", "delete important.txt")
    assert await run.finish() == 0, run.stderr
    assert (ws / "important.txt").read_text() == "keep me\n"
    [result] = tool_results(fake.requests[1])
    assert result == (
        'Tool "bash" blocked by PreToolUse hook: rm is not allowed in this repository; '
        "move files to ./trash instead"
    )
    [seen] = [json.loads(line) for line in (ws / "seen.jsonl").read_text().splitlines()]
    payload = seen["payload"]
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_name"] == "Bash"
    assert payload["tool_input"] == {"command": "rm important.txt"}
    assert payload["cwd"] == str(ws)
    assert payload["session_id"] == run.events[-1]["session_id"]
    assert seen["env"] == {
        "INK_PROJECT_DIR": str(ws),
        "CLAUDE_PROJECT_DIR": str(ws),
        "INK_API_KEY": None,
    }
    ends = [e for e in run.events if e["type"] == "hook" and e["phase"] == "end"]
    assert [(e["event"], e["outcome"]) for e in ends] == [("PreToolUse", "blocked")]


async def test_project_hooks_are_ignored_until_the_workspace_is_trusted(
    ink: Any, fake: FakeModelServer, ws: Path
) -> None:
    (ws / "important.txt").write_text("x\n")
    settings(ws, {"PreToolUse": one("Bash", script(ws, "block_rm.py", BLOCK_RM))})
    fake.push(tool("bash", {"command": "rm important.txt"}), text("deleted"))
    run = await ink("--approval", "auto", "--json", "delete important.txt")
    assert await run.finish() == 0, run.stderr
    assert not (ws / "important.txt").exists()
    ignored = (
        "ink-ls run: the workspace is not trusted, so its settings files widen nothing: "
        f"{ws}/.claude/settings.json: 1 hooks"
    )
    assert ignored in run.stderr


async def test_a_pre_tool_use_hook_rewrites_the_input(
    ink: Any, fake: FakeModelServer, ws: Path
) -> None:
    rewrite = """
import json, sys
payload = json.load(sys.stdin)
command = payload["tool_input"]["command"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "allow",
    "updatedInput": {"command": command.replace("pytest", "pytest -q --no-header")}}}))
"""
    settings(ws, {"PreToolUse": one("Bash", script(ws, "rewrite.py", rewrite))})
    fake.push(tool("bash", {"command": "echo pytest"}), text("ok"))
    run = await ink("--approval", "auto", "--trust-workspace", "--json", "run the tests")
    assert await run.finish() == 0, run.stderr
    [result] = tool_results(fake.requests[1])
    assert result.startswith("stdout:\npytest -q --no-header\n")
    assert "[A PreToolUse hook rewrote the arguments of this call before it ran.]" in result


async def test_a_post_tool_use_formatter_changes_the_file_and_the_model_sees_it(
    ink: Any, fake: FakeModelServer, ws: Path
) -> None:
    fmt = f"""
import json, subprocess, sys
path = json.load(sys.stdin)["tool_input"]["file_path"]
if path.endswith(".py"):
    subprocess.run([{RUFF!r}, "format", "--quiet", "--no-cache", path], check=True)
"""
    settings(ws, {"PostToolUse": one("Edit|MultiEdit|Write", script(ws, "fmt.py", fmt))})
    fake.push(tool("write", {"path": "app.py", "content": "x=[1,2 ,3]\n"}), text("written"))
    run = await ink("--approval", "auto", "--trust-workspace", "--json", "write app.py")
    assert await run.finish() == 0, run.stderr
    assert (ws / "app.py").read_text() == "x = [1, 2, 3]\n"
    [result] = tool_results(fake.requests[1])
    assert "[A PostToolUse hook changed app.py after this call:]" in result
    assert "-x=[1,2 ,3]" in result and "+x = [1, 2, 3]" in result


async def test_user_prompt_submit_and_session_start_add_context_to_the_request(
    ink: Any, fake: FakeModelServer, ws: Path
) -> None:
    settings(
        ws,
        {
            "SessionStart": one("", "echo 'Branch: feature/login'"),
            "UserPromptSubmit": one("", "echo 'Project codename: BLUEBIRD'"),
        },
    )
    fake.push(text("noted"))
    run = await ink("--approval", "auto", "--trust-workspace", "--json", "what is this?")
    assert await run.finish() == 0, run.stderr
    [user] = user_texts(fake.requests[0])
    assert "what is this?" in user
    assert "Project codename: BLUEBIRD" in user and "Branch: feature/login" in user


async def test_a_user_prompt_submit_hook_blocking_drops_the_prompt(
    ink: Any, fake: FakeModelServer, ws: Path
) -> None:
    settings(ws, {"UserPromptSubmit": one("", "echo 'no secrets in prompts' >&2; exit 2")})
    run = await ink("--approval", "auto", "--trust-workspace", "--json", "my key is sk-123")
    assert await run.finish() == 1
    assert fake.requests == []
    assert "the prompt was blocked by a UserPromptSubmit hook: no secrets in prompts" in run.stderr


async def test_a_stop_hook_continues_the_turn_once(
    ink: Any, fake: FakeModelServer, ws: Path
) -> None:
    stop = """
import json, os, sys
payload = json.load(sys.stdin)
with open(os.path.join(os.environ["INK_PROJECT_DIR"], "stops.txt"), "a") as fh:
    fh.write(str(payload["stop_hook_active"]) + "\\n")
if not payload["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "Run the tests before you stop."}))
"""
    settings(ws, {"Stop": one("", script(ws, "stop.py", stop))})
    fake.push(text("done"), text("tests pass, done"))
    run = await ink("--approval", "auto", "--trust-workspace", "--json", "fix it")
    assert await run.finish() == 0, run.stderr
    assert len(fake.requests) == 2
    assert (
        "Stop hook feedback:\\nRun the tests before you stop." in user_texts(fake.requests[1])[-1]
    )
    assert (ws / "stops.txt").read_text() == "False\nTrue\n"
    assert run.events[-1]["type"] == "run_end" and run.events[-1]["text"] == "tests pass, done"


async def test_a_hanging_hook_is_killed_at_its_timeout_and_does_not_block(
    ink: Any, fake: FakeModelServer, ws: Path
) -> None:
    hang = "echo $$ > hook.pid; sleep 300 & echo $! > child.pid; wait"
    settings(ws, {"PreToolUse": one("Bash", hang, timeout=1)})
    fake.push(tool("bash", {"command": "echo still ran"}), text("ok"))
    run = await ink("--approval", "auto", "--trust-workspace", "--json", "run it")
    assert await run.finish() == 0, run.stderr
    [result] = tool_results(fake.requests[1])
    assert result.startswith("stdout:\nstill ran")
    [end] = [e for e in run.events if e["type"] == "hook" and e["phase"] == "end"]
    assert end["outcome"] == "timeout"
    assert end["message"] == "timed out and was killed (not blocking)"
    for name in ("hook.pid", "child.pid"):
        assert gone(int((ws / name).read_text())), f"{name} survived"


@pytest.mark.timeout(60)
async def test_a_hanging_hook_is_killed_on_cancel(
    ink: Any, fake: FakeModelServer, ws: Path
) -> None:
    hang = "echo $$ > hook.pid; sleep 300 & echo $! > child.pid; wait"
    settings(ws, {"UserPromptSubmit": one("", hang, timeout=600)})
    run = await ink("--approval", "auto", "--trust-workspace", "--json", "hello")
    await run.until(lambda e: e["type"] == "hook" and e["phase"] == "start")
    deadline = asyncio.get_running_loop().time() + WAIT
    while not (ws / "child.pid").exists() or not (ws / "child.pid").read_text().strip():
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.02)
    run.proc.send_signal(signal.SIGINT)
    assert await run.finish() == 130, run.stderr
    [end] = [e for e in run.events if e["type"] == "hook" and e["phase"] == "end"]
    assert end["outcome"] == "cancelled"
    for name in ("hook.pid", "child.pid"):
        assert gone(int((ws / name).read_text())), f"{name} survived"
    assert fake.requests == []


async def test_the_terminal_view_says_which_hook_blocked(
    ink: Any, fake: FakeModelServer, ws: Path
) -> None:
    settings(ws, {"PreToolUse": one("Bash", "echo 'not on Fridays' >&2; exit 2")})
    fake.push(tool("bash", {"command": "make deploy"}), text("Deploy refused."))
    run = await ink("--approval", "auto", "--trust-workspace", "deploy")
    out, err = await asyncio.wait_for(run.proc.communicate(), WAIT)
    assert run.proc.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert "hook PreToolUse `echo 'not on Fridays' >&2; exit 2`: blocked: not on Fridays" in lines
    assert lines[-1] == "Deploy refused."

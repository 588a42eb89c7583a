"""Permission rules in `ink-ls run` as a user meets them: real processes, a scripted model on
loopback, rules from every settings file (the user's, `.claude/`, `.ink/`), their precedence,
compound commands, an untrusted workspace, a malformed file, and `--approval ask` with no
terminal. (The terminal question and plan mode: test_cli_rules_terminal.py.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_cli_run import Run, env, fake, ink, ws  # noqa: F401 (fixtures)
from tests.fakes.model_server import FakeModelServer, text, tool


@pytest.fixture
def user_dir(tmp_path: Path, env: dict[str, str]) -> Path:
    config = tmp_path / "config"
    env["XDG_CONFIG_HOME"] = str(config)
    return config / "ink-ls"


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def tool_results(fake: FakeModelServer) -> list[str]:
    """What the model was told for each tool call, in order."""
    out: dict[str, str] = {}
    for request in fake.requests:
        for message in request["messages"]:
            if message["role"] == "tool":
                out.setdefault(message["tool_call_id"], message["content"])
    return list(out.values())


async def test_rules_of_every_file_and_their_precedence(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path, user_dir: Path
) -> None:
    # the user's file allows echo; the project's (untrusted) denies one echo and asks
    # before git push; readonly (no terminal) lets the allowed command run: allow > mode
    write_json(user_dir / "settings.json", {"permissions": {"allow": ["Bash(echo:*)"]}})
    project = write_json(
        ws / ".ink/settings.json", {"permissions": {"deny": ["Bash(echo secret:*)"]}}
    )
    claude = write_json(ws / ".claude/settings.json", {"permissions": {"ask": ["Bash(git push)"]}})
    fake.push(
        tool("bash", {"command": "echo allowed > /dev/null && echo hi"}),
        tool("bash", {"command": "echo secret stuff"}),
        tool("bash", {"command": "git push"}),
        tool("bash", {"command": "ls"}),
        text("done"),
    )
    run: Run = await ink("--json", "hello")
    assert await run.finish() == 0, run.stderr
    results = tool_results(fake)
    assert results[0].startswith("hi\n") or "hi" in results[0]
    assert results[1] == (
        f'Tool "bash" blocked by permission rule: deny rule "Bash(echo secret:*)" '
        f"(permissions.deny[0] in {project}) matches `echo secret stuff`"
    )
    assert results[2] == (
        f'Tool "bash" blocked by permission rule: ask rule "Bash(git push)" '
        f"(permissions.ask[0] in {claude}) matches `git push`; approval mode readonly asks no one"
    )
    assert results[3] == (
        'Tool "bash" blocked by policy: approval mode is readonly: commands are not run'
    )


async def test_compound_commands_end_to_end(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path, user_dir: Path
) -> None:
    write_json(user_dir / "settings.json", {"permissions": {"deny": ["Bash(rm:*)"]}})
    (ws / "keep.txt").write_text("x")
    commands = [
        "echo ok && rm -f keep.txt",
        "bash -c 'rm -f keep.txt'",
        "env X=1 rm -f keep.txt",
        'echo "$(rm -f keep.txt)"',
        "ls | xargs /bin/rm -f",
        "'r'm -f keep.txt",
    ]
    fake.push(*[tool("bash", {"command": c}) for c in commands], text("done"))
    run: Run = await ink("--json", "--approval", "auto", "hello")
    assert await run.finish() == 0, run.stderr
    results = tool_results(fake)
    assert len(results) == len(commands)
    for result in results:
        assert result.startswith('Tool "bash" blocked by permission rule: deny rule "Bash(rm:*)"')
    assert (ws / "keep.txt").read_text() == "x"  # nothing ran


async def test_untrusted_project_widens_nothing_and_trusted_applies(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path, user_dir: Path
) -> None:
    write_json(
        ws / ".ink/settings.local.json",
        {"permissions": {"allow": ["Bash(touch made.txt)"], "defaultMode": "auto"}},
    )
    fake.push(tool("bash", {"command": "touch made.txt"}), text("done"))
    run: Run = await ink("--json", "hello")
    assert await run.finish() == 0
    assert not (ws / "made.txt").exists()
    assert tool_results(fake)[0] == (
        'Tool "bash" blocked by policy: approval mode is readonly: commands are not run'
    )
    assert "the workspace is not trusted, so its settings files widen nothing" in run.stderr
    assert "1 allow rules" in run.stderr and "defaultMode auto" in run.stderr

    fake.requests.clear()
    fake.push(tool("bash", {"command": "touch made.txt"}), text("done"))
    run = await ink("--json", "--trust-workspace", "hello")
    assert await run.finish() == 0, run.stderr
    assert (ws / "made.txt").exists()

    # --approval beats the trusted defaultMode; an allow rule still beats the mode
    fake.requests.clear()
    fake.push(tool("bash", {"command": "touch other.txt"}), text("done"))
    run = await ink("--json", "--trust-workspace", "--approval", "readonly", "hello")
    assert await run.finish() == 0
    assert not (ws / "other.txt").exists()


async def test_malformed_settings_file_is_reported_and_the_rest_applies(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path, user_dir: Path
) -> None:
    bad = write_json(ws / ".ink/settings.json", '{"permissions": {"deny": [')
    claude = write_json(
        ws / ".claude/settings.json", {"permissions": {"deny": ["Bash(rm:*)", 42, "Nope(x)"]}}
    )
    fake.push(tool("bash", {"command": "rm -rf /tmp/x"}), text("done"))
    run: Run = await ink("--json", "--approval", "auto", "hello")
    assert await run.finish() == 0
    lines = run.stderr.splitlines()
    reported = (
        f"ink-ls run: invalid settings in {bad}: not valid JSON (line 1, column 27): "
        "Expecting value; the rest of the settings apply"
    )
    assert lines.count(reported) == 1  # once, not once per place that prints notices
    assert (
        f"ink-ls run: invalid settings in {claude} at permissions.deny[1]: a rule must be a "
        "string; the rest of the settings apply"
    ) in lines
    assert (
        f'ink-ls run: invalid settings in {claude} at permissions.deny[2]: "Nope(x)": unknown '
        "tool 'Nope' (one of Bash, Read, Edit, Write, Grep, Glob, LS, Task, TodoWrite, "
        "mcp__<server>); the rest of the settings apply"
    ) in lines
    assert tool_results(fake)[0].startswith(
        'Tool "bash" blocked by permission rule: deny rule "Bash(rm:*)"'
    )


async def test_ask_without_a_terminal_exits_2_unless_rules_decide(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path, user_dir: Path
) -> None:
    fake.push(tool("bash", {"command": "touch a.txt"}))  # the run stops at this call
    run: Run = await ink("--json", "--approval", "ask", "hello")
    assert await run.finish() == 2
    assert not (ws / "a.txt").exists()
    assert run.stderr.strip().splitlines()[-1] == (
        "ink-ls run: --approval ask needs a terminal to ask on (stdin is not one), and no "
        "permission rule decides this call: Run command: touch a.txt. Add a rule "
        "(permissions.allow or permissions.deny in .ink/settings.json) or use --approval auto "
        "or --approval readonly"
    )
    write_json(
        user_dir / "settings.json",
        {"permissions": {"allow": ["Bash(touch a.txt)"], "deny": ["Bash(curl:*)"]}},
    )
    fake.requests.clear()
    fake.push(
        tool("bash", {"command": "touch a.txt"}),
        tool("bash", {"command": "curl http://127.0.0.1:9"}),
        text("done"),
    )
    run = await ink("--json", "--approval", "ask", "hello")
    assert await run.finish() == 0, run.stderr
    assert (ws / "a.txt").exists()

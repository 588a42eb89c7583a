"""Hooks below the agent: Claude Code's names and keys, matchers, and real hook commands whose
exit codes and JSON output combine into verdicts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ink_ls.core.signal import NEVER, CancelController
from ink_ls.hooks import names
from ink_ls.hooks.config import matches
from ink_ls.hooks.engine import HookReport, Hooks
from ink_ls.tools import _process


@dataclass(frozen=True)
class Entry:
    event: str
    matcher: str
    command: str
    timeout: float | None = None


@pytest.fixture(autouse=True)
def _no_leftovers() -> Iterator[None]:
    yield
    _process.kill_all_tracked()


def hooks(tmp_path: Path, *entries: Entry) -> tuple[Hooks, list[HookReport]]:
    made = Hooks(entries, cwd=tmp_path, session_id="s-1", secret_env=("MY_KEY",))
    seen: list[HookReport] = []
    made.report = seen.append
    return made, seen


def test_claude_code_names_and_keys_both_ways(tmp_path: Path) -> None:
    edit = {"path": "a.py", "edits": [{"old_text": "x", "new_text": "y"}]}
    assert names.claude_name("edit", edit) == "Edit"
    assert names.claude_input("edit", edit, tmp_path) == {
        "file_path": str(tmp_path / "a.py"),
        "old_string": "x",
        "new_string": "y",
        "replace_all": False,
    }
    two = {"path": "a.py", "edits": [{"old_text": "a", "new_text": "b"}] * 2}
    assert names.claude_name("edit", two) == "MultiEdit"
    assert names.our_input("edit", names.claude_input("edit", two, tmp_path)) == {
        "path": str(tmp_path / "a.py"),
        "edits": [{"old_text": "a", "new_text": "b"}] * 2,
    }
    assert names.claude_input("bash", {"command": "ls", "timeout": 5}, tmp_path) == {
        "command": "ls",
        "timeout": 5000,
    }
    assert names.our_input("bash", {"command": "ls", "timeout": 2500}) == {
        "command": "ls",
        "timeout": 2.5,
    }
    assert [names.claude_name(t, {}) for t in ("read", "write", "find", "mcp__gh__issue")] == [
        "Read",
        "Write",
        "Glob",
        "mcp__gh__issue",
    ]


def test_matchers() -> None:
    assert matches("", "Bash") and matches("*", "Write")
    assert matches("Edit|Write", "Write") and not matches("Edit|Write", "MultiEdit")
    assert matches("mcp__github__.*", "mcp__github__issue") and not matches("Bash", "BashX")
    assert matches("(", "(") and not matches("(", "Bash")  # not a regex: literal


async def test_deny_beats_ask_beats_allow_and_the_last_rewrite_wins(tmp_path: Path) -> None:
    def out(decision: str, command: str | None = None) -> str:
        specific: dict[str, object] = {"permissionDecision": decision}
        if command:
            specific["updatedInput"] = {"command": command}
        return f"echo '{json.dumps({'hookSpecificOutput': specific})}'"

    made, _ = hooks(
        tmp_path,
        Entry("PreToolUse", "Bash", out("allow", "ls -a")),
        Entry("PreToolUse", "", out("ask")),
    )
    verdict = await made.pre_tool_use("bash", {"command": "ls"}, "c1", NEVER)
    assert verdict is not None and verdict.permission == "ask" and verdict.blocked is None
    assert verdict.updated_input == {"command": "ls -a"}
    made, _ = hooks(
        tmp_path,
        Entry("PreToolUse", "Bash", out("allow")),
        Entry("PreToolUse", "Bash", 'echo \'{"decision": "block", "reason": "no"}\''),
    )
    verdict = await made.pre_tool_use("bash", {"command": "ls"}, "c1", NEVER)
    assert verdict is not None and verdict.blocked == "no"
    assert await made.pre_tool_use("read", {"path": "a"}, "c2", NEVER) is None


async def test_a_failing_hook_is_reported_and_does_not_block(tmp_path: Path) -> None:
    made, seen = hooks(tmp_path, Entry("PreToolUse", "", "echo broken >&2; exit 1"))
    verdict = await made.pre_tool_use("bash", {"command": "ls"}, "c1", NEVER)
    assert verdict is not None and verdict.blocked is None and verdict.permission is None
    assert [(r.outcome, r.message) for r in seen] == [
        (None, ""),
        ("failed", "failed (not blocking): broken"),
    ]


async def test_the_environment_has_the_project_dir_and_no_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other")
    command = 'echo "$INK_PROJECT_DIR|$CLAUDE_PROJECT_DIR|${MY_KEY:-}|${OPENAI_API_KEY:-}|$PWD"'
    made, _ = hooks(tmp_path, Entry("UserPromptSubmit", "", command))
    verdict = await made.user_prompt_submit("hi", NEVER)
    assert verdict.context == [f"{tmp_path}|{tmp_path}|||{tmp_path}"]


async def test_session_start_runs_once_and_pre_compact_gets_its_trigger(tmp_path: Path) -> None:
    made, seen = hooks(
        tmp_path,
        Entry("SessionStart", "", "echo started"),
        Entry("PreCompact", "", "cat > compact.json"),
    )
    first = await made.user_prompt_submit("a", NEVER)
    second = await made.user_prompt_submit("b", NEVER)
    assert (first.context, second.context) == (["started"], [])
    await made.pre_compact("auto", NEVER)
    payload = json.loads((tmp_path / "compact.json").read_text())
    assert (payload["hook_event_name"], payload["trigger"]) == ("PreCompact", "auto")
    assert payload["session_id"] == "s-1" and payload["cwd"] == str(tmp_path)


async def test_a_cancel_kills_a_hanging_hook_at_once(tmp_path: Path) -> None:
    made, seen = hooks(tmp_path, Entry("Stop", "", "echo $$ > pid; exec sleep 300", 600))
    controller = CancelController()

    def on_report(report: HookReport) -> None:
        seen.append(report)
        if report.outcome is None:
            controller.cancel("test")

    made.report = on_report
    assert await made.stop(False, controller.signal) is None
    assert seen[-1].outcome == "cancelled"

"""Permission rules and plan mode in the language server, over real stdio (both capability
presets): the editor's `ink.permissions` with the project's files (deny > ask > allow > mode),
an untrusted project's allow rules ignored and a trusted one's applied, "Always in this
project" saved and obeyed by the next turn, a malformed settings file reported as a warning,
and plan mode approved with "Approve and continue in auto mode" in the same prompt request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.conftest import SECRET, InkClient, Starter, answer, tool_results
from tests.fakes.model_server import FakeModelServer, text, tool


def options(model: FakeModelServer, approval: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": {"baseUrl": model.base_url, "model": "fake-model", "apiKey": SECRET},
        "approval": approval,
        **extra,
    }


async def begin(
    start: Starter, model: FakeModelServer, tmp_path: Path, approval: str, **extra: Any
) -> InkClient:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    return await start(ink=options(model, approval, **extra), env=env)


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


async def test_editor_and_project_rules_with_their_precedence(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    project = write_json(
        workspace / ".ink/settings.json",
        {"permissions": {"ask": ["Bash(touch asked.txt)"], "allow": ["Bash(touch x.txt)"]}},
    )
    model.push(
        tool("bash", {"command": "echo hi && rm -f README.md"}),
        tool("bash", {"command": "touch asked.txt"}),
        tool("bash", {"command": "touch x.txt"}),
        tool("bash", {"command": "touch allowed.txt"}),
        text("done"),
    )
    client = await begin(
        start,
        model,
        tmp_path,
        "auto",
        trustWorkspace=False,
        permissions={"deny": ["Bash(rm:*)"], "allow": ["Bash(touch allowed.txt)"]},
    )
    client.on_message_request = answer("reject_once")
    result = await client.prompt("go")
    assert result["stopReason"] == "end_turn"
    denied, asked, untrusted_allow, allowed = tool_results(model.wait_requests(5)[4])
    assert denied == (
        'Tool "bash" blocked by permission rule: deny rule "Bash(rm:*)" (permissions.deny[0] '
        "in editor settings (ink.permissions, ink.hooks)) matches `rm -f README.md`"
    )
    assert (workspace / "README.md").exists()
    # the project's ask rule asks even in auto mode (and the user said no)
    (question,) = client.message_requests
    assert question["message"] == (
        'Ink wants to run a command:\ntouch asked.txt\n(asked by ask rule "Bash(touch '
        f'asked.txt)" (permissions.ask[0] in {project}) matches `touch asked.txt`)'
    )
    assert asked == 'Tool "bash" blocked by user: the user rejected this call'
    # auto mode runs the rest: the untrusted allow rule changed nothing here
    assert "Error" not in untrusted_allow and (workspace / "x.txt").exists()
    assert (workspace / "allowed.txt").exists()


async def test_untrusted_allow_ignored_trusted_applied_and_always_in_this_project(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    write_json(workspace / ".ink/settings.json", {"permissions": {"allow": ["Bash(touch a.txt)"]}})
    model.push(tool("bash", {"command": "touch a.txt"}), text("done"))
    client = await begin(start, model, tmp_path, "ask", trustWorkspace=False)
    client.on_message_request = answer("reject_once")
    await client.prompt("go")
    assert not (workspace / "a.txt").exists()  # untrusted: its allow rule asked nothing away
    assert len(client.message_requests) == 1

    # trusted: the allow rule decides; another command offers "Always in this project"
    model.push(
        tool("bash", {"command": "touch a.txt"}),
        tool("bash", {"command": "touch b.txt"}),
        text("done"),
    )
    client = await begin(start, model, tmp_path, "ask", trustWorkspace=True)
    client.on_message_request = answer("allow_project")
    await client.prompt("go")
    assert (workspace / "a.txt").exists() and (workspace / "b.txt").exists()
    (question,) = client.message_requests
    assert question["message"].endswith('"Always in this project" saves Bash(touch b.txt)')
    titles = [a["title"] for a in question["actions"]]
    assert titles == ["Allow once", "Always allow", "Always in this project", "Reject"]
    local = json.loads((workspace / ".ink/settings.local.json").read_text())
    assert local == {"permissions": {"allow": ["Bash(touch b.txt)"]}}

    # a new connection (a new session) runs it without asking
    (workspace / "b.txt").unlink()
    model.push(tool("bash", {"command": "touch b.txt"}), text("done"))
    client = await begin(start, model, tmp_path, "ask", trustWorkspace=True)
    await client.prompt("go")  # the default handler fails the test on any question
    assert (workspace / "b.txt").exists()


async def test_a_malformed_settings_file_is_a_warning_and_the_rest_applies(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    bad = write_json(workspace / ".claude/settings.json", '{"permissions": ')
    model.push(tool("bash", {"command": "rm -f README.md"}), text("done"))
    client = await begin(
        start, model, tmp_path, "auto", permissions={"deny": ["Bash(rm:*)"]}, hooks=[]
    )
    await client.prompt("go")
    warnings = [
        u["update"]["message"] for u in client.updates if u["update"]["sessionUpdate"] == "warning"
    ]
    assert (
        f"invalid settings in {bad}: not valid JSON (line 1, column 17): Expecting value; "
        "the rest of the settings apply"
    ) in warnings
    assert (workspace / "README.md").exists()


async def test_plan_mode_changes_nothing_until_approved_in_the_same_turn(
    start: Starter, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "app.py").write_text("print('hello')\n")
    edit = {"path": "app.py", "edits": [{"old_text": "hello", "new_text": "bye"}]}
    model.push(
        tool("todo_write", {"todos": [{"content": "change app.py", "status": "pending"}]}),
        tool("edit", edit),
        text("Plan: 1. change the greeting in app.py"),
        tool("edit", edit),
        text("Changed."),
    )
    client = await begin(start, model, tmp_path, "plan")
    seen: list[str] = []

    async def approve(params: dict[str, Any]) -> Any:
        seen.append((workspace / "app.py").read_text())
        return next(a for a in params["actions"] if a["title"].endswith("in auto mode"))

    client.on_message_request = approve
    result = await client.prompt("say bye")
    assert result["stopReason"] == "end_turn" and result["text"] == "Changed."
    assert seen == ["print('hello')\n"]  # nothing changed before the approval
    (question,) = client.message_requests
    assert question["message"] == (
        "Ink has a plan. Approve it and continue?\n\nPlan: 1. change the greeting in app.py"
    )
    assert [a["title"] for a in question["actions"]] == [
        "Approve and continue in ask mode",
        "Approve and continue in auto mode",
        "Not now",
    ]
    assert (workspace / "app.py").read_text() == "print('bye')\n"
    refused = tool_results(model.wait_requests(3)[2])[-1]
    assert refused.startswith('Tool "edit" blocked by plan mode')
    todo = client.tool_updates("call_1")[0]
    assert todo["title"] == "to-do list (0/1 done)"

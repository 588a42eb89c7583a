"""The approval gate with permission rules: deny > ask > allow > mode in every mode, plan mode,
the ids of rule-allowed calls for the writers, and "always in this project"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ink_ls.agent.approval import ApprovalGate, ApprovalMode
from ink_ls.agent.permissions import Permissions
from ink_ls.core.signal import NEVER
from ink_ls.rules.policy import Policy
from ink_ls.tools.todo import TodoWriteTool
from tests.unit.agent.test_approval import BashLike, ScriptedPrompter, WriteLike, req


def permissions(cwd: Path, **rules: list[str]) -> Permissions:
    policy = Policy()
    for kind, texts in rules.items():
        for text in texts:
            policy.add(kind, text, cwd)  # type: ignore[arg-type]
    return Permissions(policy)


@pytest.mark.parametrize("mode", ["ask", "auto", "readonly", "plan"])
async def test_deny_refuses_in_every_mode_naming_the_rule(
    tmp_path: Path, mode: ApprovalMode
) -> None:
    prompter = ScriptedPrompter()
    gate = ApprovalGate(mode, prompter, permissions=permissions(tmp_path, deny=["Bash(rm:*)"]))
    block = await gate(req(BashLike(), tmp_path, command="ls && rm -rf /"), NEVER)
    assert block is not None and block.source == "permission rule"
    assert block.reason == 'deny rule "Bash(rm:*)" (this session) matches `rm -rf /`'
    assert prompter.questions == []
    assert not gate.would_pass(req(BashLike(), tmp_path, command="rm x"))


@pytest.mark.parametrize(
    ("mode", "asked", "passes"),
    [("ask", True, True), ("auto", True, True), ("readonly", False, False), ("plan", False, False)],
)
async def test_ask_rule_asks_in_every_mode_that_asks(
    tmp_path: Path, mode: ApprovalMode, asked: bool, passes: bool
) -> None:
    prompter = ScriptedPrompter("allow_once")
    gate = ApprovalGate(mode, prompter, permissions=permissions(tmp_path, ask=["Bash(git push:*)"]))
    block = await gate(req(BashLike(), tmp_path, command="git push origin"), NEVER)
    assert (block is None) == passes
    assert bool(prompter.questions) == asked
    if asked:
        (question,) = prompter.questions
        assert question.rule is not None and question.rule.startswith('ask rule "Bash(git push:*)"')
        assert question.project_rules == ()  # an ask rule is never answered for good


@pytest.mark.parametrize("mode", ["ask", "readonly"])
async def test_allow_beats_the_mode_and_grants_the_writer(
    tmp_path: Path, mode: ApprovalMode
) -> None:
    gate = ApprovalGate(
        mode,
        ScriptedPrompter(),
        permissions=permissions(tmp_path, allow=["Bash(npm test)", "Edit(src/**)"]),
    )
    assert gate.would_pass(req(BashLike(), tmp_path, command="npm test"))
    assert await gate(req(BashLike(), tmp_path, command="npm test"), NEVER) is None
    assert await gate(req(WriteLike(), tmp_path, path="src/a.py"), NEVER) is None
    assert gate.granted == {"c1"}


async def test_plan_mode_runs_only_reading_calls(tmp_path: Path) -> None:
    gate = ApprovalGate(
        "plan", ScriptedPrompter(), permissions=permissions(tmp_path, allow=["Bash"])
    )
    block = await gate(req(BashLike(), tmp_path, command="ls"), NEVER)
    assert block is not None and block.source == "plan mode"
    assert await gate(req(WriteLike(), tmp_path, path="a.py"), NEVER) is not None
    todo = TodoWriteTool()
    request = req(todo, tmp_path, todos=[])  # type: ignore[arg-type]
    assert gate.would_pass(request) and await gate(request, NEVER) is None
    bare = ApprovalGate("plan", ScriptedPrompter())  # without rules too
    assert await bare(req(BashLike(), tmp_path, command="ls"), NEVER) is not None


async def test_always_in_this_project_saves_and_applies_the_rules(tmp_path: Path) -> None:
    prompter = ScriptedPrompter("allow_project")
    gate = ApprovalGate("ask", prompter, permissions=permissions(tmp_path))
    assert await gate(req(BashLike(), tmp_path, command="make test > out.log"), NEVER) is None
    (question,) = prompter.questions
    assert question.project_rules == ("Bash(make test)", "Edit(./out.log)")
    saved = json.loads((tmp_path / ".ink/settings.local.json").read_text())
    assert saved == {"permissions": {"allow": ["Bash(make test)", "Edit(./out.log)"]}}
    # applied at once: the same command passes without a question
    assert gate.would_pass(req(BashLike(), tmp_path, command="make test > out.log"))

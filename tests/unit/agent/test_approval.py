"""The approval policy: which calls ask, pass or are refused in each mode."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ink_ls.agent.approval import ApprovalGate, ApprovalQuestion, Choice
from ink_ls.agent.gate import GateBlock, GateRequest
from ink_ls.core.signal import NEVER, CancelController, CancelSignal
from ink_ls.core.tool import Access, Tool, ToolContext, ToolParams, ToolResult


class PathParams(ToolParams):
    path: str


class CommandParams(ToolParams):
    command: str


class ReadLike(Tool[PathParams]):
    name = "read"
    description = "reads"
    params_model = PathParams

    def access(self, args: PathParams, cwd: Path) -> Access:
        return Access(reads=frozenset({cwd / args.path}))

    async def execute(self, args: PathParams, signal: CancelSignal, ctx: ToolContext) -> ToolResult:
        return ToolResult(output="")


class WriteLike(ReadLike):
    name = "write"

    def access(self, args: PathParams, cwd: Path) -> Access:
        return Access(writes=frozenset({cwd / args.path}))


class BashLike(Tool[CommandParams]):
    name = "bash"
    description = "runs"
    params_model = CommandParams

    async def execute(
        self, args: CommandParams, signal: CancelSignal, ctx: ToolContext
    ) -> ToolResult:
        return ToolResult(output="")


class TaskLike(BashLike):
    name = "task"
    delegates = True


class ScriptedPrompter:
    def __init__(self, *answers: Choice | None, hang: bool = False) -> None:
        self.answers = list(answers)
        self.questions: list[ApprovalQuestion] = []
        self.hang = hang

    async def __call__(self, question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        self.questions.append(question)
        if self.hang:
            await asyncio.Event().wait()
        return self.answers.pop(0)


def req(tool: Tool[ToolParams], cwd: Path, **args: str) -> GateRequest:
    return GateRequest(tool=tool, tool_call_id="c1", args=tool.params_model(**args), cwd=cwd)


async def test_reads_inside_the_workspace_never_ask(tmp_path: Path) -> None:
    prompter = ScriptedPrompter()
    gate = ApprovalGate("ask", prompter)
    assert await gate(req(ReadLike(), tmp_path, path="a.txt"), NEVER) is None
    assert prompter.questions == []


async def test_a_read_escaping_through_a_symlink_asks(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "secret"
    ws.mkdir()
    outside.mkdir()
    (ws / "link").symlink_to(outside)
    prompter = ScriptedPrompter("reject")
    gate = ApprovalGate("ask", prompter)
    block = await gate(req(ReadLike(), ws, path="link/key"), NEVER)
    assert block == GateBlock("user", "the user rejected this call")
    assert prompter.questions[0].kind == "outside_workspace"
    assert str(outside / "key") in prompter.questions[0].title


async def test_dotdot_outside_asks_and_allow_once_passes(tmp_path: Path) -> None:
    prompter = ScriptedPrompter("allow_once", "allow_once")
    gate = ApprovalGate("ask", prompter)
    assert await gate(req(ReadLike(), tmp_path, path="../x"), NEVER) is None
    assert await gate(req(ReadLike(), tmp_path, path="../x"), NEVER) is None
    assert len(prompter.questions) == 2


async def test_command_asks_and_always_allow_is_not_asked_twice(tmp_path: Path) -> None:
    prompter = ScriptedPrompter("allow_always")
    gate = ApprovalGate("ask", prompter)
    assert await gate(req(BashLike(), tmp_path, command="npm test"), NEVER) is None
    assert await gate(req(BashLike(), tmp_path, command="rm -rf build"), NEVER) is None
    assert [q.title for q in prompter.questions] == ["Run command: npm test"]


async def test_dismissed_prompt_blocks(tmp_path: Path) -> None:
    gate = ApprovalGate("ask", ScriptedPrompter(None))
    block = await gate(req(BashLike(), tmp_path, command="ls"), NEVER)
    assert block == GateBlock("user", "the approval prompt was dismissed")


async def test_unanswered_prompt_times_out(tmp_path: Path) -> None:
    gate = ApprovalGate("ask", ScriptedPrompter(hang=True), timeout=0.05)
    block = await gate(req(BashLike(), tmp_path, command="ls"), NEVER)
    assert block == GateBlock("user", "no answer to the approval prompt within 0.05s")


async def test_cancel_ends_a_pending_prompt(tmp_path: Path) -> None:
    ctl = CancelController()
    gate = ApprovalGate("ask", ScriptedPrompter(hang=True))
    pending = asyncio.ensure_future(gate(req(BashLike(), tmp_path, command="ls"), ctl.signal))
    await asyncio.sleep(0)
    ctl.cancel()
    block = await asyncio.wait_for(pending, 1)
    assert block == GateBlock("user", "cancelled while waiting for approval")


@pytest.mark.parametrize("tool", [BashLike(), WriteLike()])
async def test_readonly_refuses_commands_and_changes(
    tmp_path: Path, tool: Tool[ToolParams]
) -> None:
    gate = ApprovalGate("readonly", ScriptedPrompter())
    args = {"command": "ls"} if tool.name == "bash" else {"path": "a.txt"}
    block = await gate(req(tool, tmp_path, **args), NEVER)
    assert block is not None and block.source == "policy"


async def test_changes_inside_pass_the_gate_under_ask(tmp_path: Path) -> None:
    # the FileWriter asks for them with the real diff
    prompter = ScriptedPrompter()
    assert await ApprovalGate("ask", prompter)(req(WriteLike(), tmp_path, path="a"), NEVER) is None
    assert prompter.questions == []


async def test_auto_asks_nothing_and_delegating_tools_pass(tmp_path: Path) -> None:
    prompter = ScriptedPrompter()
    bash, task = req(BashLike(), tmp_path, command="x"), req(TaskLike(), tmp_path, command="x")
    assert await ApprovalGate("auto", prompter)(bash, NEVER) is None
    assert await ApprovalGate("ask", prompter)(task, NEVER) is None
    assert prompter.questions == []


async def test_no_prompter_means_blocked(tmp_path: Path) -> None:
    block = await ApprovalGate("ask")(req(BashLike(), tmp_path, command="x"), NEVER)
    assert block == GateBlock("policy", "approval is required but no one can be asked")


async def test_readonly_refuses_reads_outside_without_asking(tmp_path: Path) -> None:
    prompter = ScriptedPrompter("allow_once")
    gate = ApprovalGate("readonly", prompter)
    block = await gate(req(ReadLike(), tmp_path, path="../x"), NEVER)
    assert block == GateBlock(
        "policy", "approval mode is readonly: files outside the workspace are not read"
    )
    assert prompter.questions == []
    assert await gate(req(ReadLike(), tmp_path, path="inside.txt"), NEVER) is None

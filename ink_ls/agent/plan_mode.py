"""Plan mode: what the model is told while only reading tools run, and after the user approved
the plan. The gate refuses everything else in mode `plan` (`approval.ApprovalGate`).

Front ends switch an agent in and out of plan mode with these; they never word it themselves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from ink_ls.agent.builtins import run_builtin
from ink_ls.core.messages import UserMessage, text_of
from ink_ls.core.signal import CancelSignal

if TYPE_CHECKING:
    from ink_ls.agent.approval import ApprovalGate
    from ink_ls.agent.loop import Agent, RunResult
    from ink_ls.agent.turn import PreparedTurn

PLAN_NOTE = """\

Plan mode is on: nothing may be changed and no command runs until the user approves your plan.
Investigate with the reading tools (read, grep, find, ls), keep a to-do list with todo_write if
the work has several steps, then end your reply with the plan: the steps you will take, the
files you will change and how you will check the result. Do not try to make the changes."""

APPROVED_PROMPT = (
    "The user approved the plan (approval mode is now {mode}). Carry it out now, step by step, "
    "keeping the to-do list current."
)


def enter_plan(agent: Agent) -> None:
    """Tell the model plan mode is on (in its system prompt, for every request of the run)."""
    if not agent.options.system_prompt.endswith(PLAN_NOTE):
        agent.options.system_prompt += PLAN_NOTE


def leave_plan(agent: Agent) -> None:
    """Take the plan-mode note out of the system prompt again."""
    agent.options.system_prompt = agent.options.system_prompt.removesuffix(PLAN_NOTE)


def approved_prompt(mode: str) -> str:
    """The message that continues the turn once the plan is approved in `mode`."""
    return APPROVED_PROMPT.format(mode=mode)


PlanApproval = Callable[[str], Awaitable[Literal["ask", "auto"] | None]]
"""Shows the plan and returns the mode to go on in ("Approve and continue in ask/auto"), or
None when the user did not approve it."""


async def run_turn(
    prepared: PreparedTurn,
    gate: ApprovalGate,
    prompt: str | UserMessage,
    signal: CancelSignal,
    approve: PlanApproval | None,
) -> RunResult:
    """The turn of what the user typed: a built-in command (`agent.builtins`) is done, else the
    prompt is composed (`agent.composing`: prompt files, @-mentions) and run; in plan mode, a
    plan the user approves (through `approve`) goes on in the same turn in the mode chosen.
    Without `approve` (no one to ask) the plan is the answer."""
    agent = prepared.agent
    typed = prompt if isinstance(prompt, str) else text_of(prompt.content)
    done = await run_builtin(agent, typed, signal, prepared.rewind)
    if done is not None:
        return done
    planning = gate.mode == "plan"
    result = await agent.run(await prepared.composer.compose(prompt), signal)
    if not planning or approve is None or result.stop_reason != "completed":
        return result
    mode = await approve(result.text)
    if mode is None:
        return result
    gate.mode = mode
    leave_plan(agent)
    return await agent.run(approved_prompt(mode), signal)

"""Plan mode: what the model is told while only reading tools run, and after the user approved
the plan. The gate refuses everything else in mode `plan` (`approval.ApprovalGate`).

Front ends switch an agent in and out of plan mode with these; they never word it themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ink_ls.agent.loop import Agent

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

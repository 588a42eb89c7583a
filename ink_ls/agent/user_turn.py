"""The turn of what the user typed, the same in every front end: a built-in command, else the
composed prompt run by the prepared agent, with plan mode's approval in between."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from ink_ls.agent.builtins import run_builtin
from ink_ls.agent.plan_mode import approved_prompt, leave_plan
from ink_ls.core.messages import UserMessage, text_of
from ink_ls.core.signal import CancelSignal

if TYPE_CHECKING:
    from ink_ls.agent.approval import ApprovalGate
    from ink_ls.agent.loop import RunResult
    from ink_ls.agent.turn import PreparedTurn


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

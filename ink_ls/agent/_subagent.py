"""The `SubagentRunner` an Agent hands to tools (task): a child Agent on a fresh history.

The child shares the parent's model, gate, files, writer and process budget, has every tool
but `task` (no recursion), and follows the call's cancel signal. Child events are not
forwarded: the event union has no way to tag them with the parent call, and untagged tool
events would corrupt the parent's per-call ordering in the editor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ink_ls.agent.signal import CancelController, CancelSignal
from ink_ls.tools.base import SubagentRunner

if TYPE_CHECKING:
    from ink_ls.agent.loop import Agent

MAX_TURNS_NOTE = (
    "\n\n[The sub-agent stopped at its turn limit; this answer may be incomplete.]"
)


class SubagentError(Exception):
    """The sub-agent ended without an answer (error or cancel)."""


def make_subagent_runner(parent: Agent) -> SubagentRunner:
    """A runner that starts a fresh child of `parent` per call."""

    async def run(prompt: str, signal: CancelSignal) -> str:
        controller = CancelController(signal)
        try:
            result = await parent.child().run(prompt, controller.signal)
        finally:
            controller.detach()
        if result.stop_reason == "aborted":
            raise SubagentError("the sub-agent was interrupted before it finished")
        if result.stop_reason == "error":
            raise SubagentError(f"the sub-agent failed: {result.error}")
        if result.stop_reason == "max_iterations":
            return result.text + MAX_TURNS_NOTE
        return result.text

    return run

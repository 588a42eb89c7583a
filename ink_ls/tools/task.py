"""The `task` tool: hands a self-contained job to a sub-agent and returns its final answer.

It only delegates (`delegates = True`): the sub-agent's own calls are gated and take process
budget slots, so this call takes none. It must not run the sub-agent itself: the Agent
provides `context.subagent`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import (
    TaskDisplay,
    Tool,
    ToolContext,
    ToolParams,
    ToolResult,
    short_line,
    text_arg,
)

MAX_ANSWER_BYTES = 50 * 1024

DESCRIPTION = (
    "Delegate a self-contained job to a sub-agent that has its own fresh history and the same "
    "tools as you (except task), and get back its final answer. Several task calls in one reply "
    "run at the same time, so only delegate work that is independent of the other calls and "
    "does not touch the same files; the sub-agent cannot see this conversation, so the prompt "
    "must say everything it needs. Answers longer than 50 KiB are cut to their last 50 KiB."
)


class TaskParams(ToolParams):
    prompt: str = Field(
        description="The complete instructions for the sub-agent: goal, context, and what to "
        "report back. It sees nothing of this conversation."
    )
    description: str | None = Field(
        default=None, description="A short (3-8 word) label for the job, shown to the user."
    )


def tail_cut(text: str, limit: int = MAX_ANSWER_BYTES) -> str:
    """Keep the last `limit` bytes of `text` (UTF-8, never splitting a character), with a note."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    kept = data[-limit:].decode("utf-8", errors="ignore")
    return (
        f"[The sub-agent's answer was {len(data)} bytes; showing only its last "
        f"{limit // 1024} KiB.]\n\n{kept}"
    )


class TaskTool(Tool[TaskParams]):
    name = "task"
    description = DESCRIPTION
    params_model = TaskParams
    concurrency_safe = True
    delegates = True
    kind = "think"

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        what = text_arg(args, "description") or text_arg(args, "prompt")
        return f"task: {short_line(what, 60)}"

    async def execute(
        self, args: TaskParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        """Run the sub-agent on `args.prompt`; its final answer, tail-cut, is the result."""
        if context.subagent is None:
            return ToolResult(
                output="Error: sub-agents are not available here; do the work yourself "
                "with the other tools.",
                is_error=True,
            )
        if not args.prompt.strip():
            return ToolResult(
                output="Error: the task prompt is empty; say what the sub-agent should do.",
                is_error=True,
            )
        answer = await context.subagent(args.prompt, signal)
        if not answer.strip():
            answer = "(the sub-agent finished without a text answer)"
        shown = TaskDisplay(args.description or short_line(args.prompt, 60))
        return ToolResult(output=tail_cut(answer), display=shown)

"""The `plan` tool of the ACP front end: the model states its plan and keeps it current; the
client shows it (a `plan` session update). The tool itself only acknowledges."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import Access, Tool, ToolContext, ToolParams, ToolResult

PLAN_TOOL = "plan"


class PlanEntry(BaseModel):
    """One step of the plan."""

    model_config = ConfigDict(extra="forbid")
    content: str = Field(min_length=1, description="What this step does, in a few words.")
    status: Literal["pending", "in_progress", "completed"] = Field(
        default="pending", description="Where this step stands."
    )
    priority: Literal["high", "medium", "low"] = Field(
        default="medium", description="How much this step matters."
    )


class PlanParams(ToolParams):
    entries: list[PlanEntry] = Field(
        min_length=1, description="The whole plan, every step, in order (it replaces the last)."
    )


class PlanTool(Tool[PlanParams]):
    """Shows the plan to the user; safe to run alongside anything (it touches nothing)."""

    name = PLAN_TOOL
    description = (
        "Show the user your plan for a task of several steps, and update it as steps are done: "
        "send the whole list each time, each step with status pending, in_progress or "
        "completed. Skip it for simple requests."
    )
    params_model = PlanParams
    concurrency_safe = True
    kind = "think"

    def access(self, args: PlanParams, cwd: Path) -> Access | None:
        return Access()  # touches no file and runs nothing: never asks for approval

    async def execute(
        self, args: PlanParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        done = sum(1 for e in args.entries if e.status == "completed")
        return ToolResult(f"Plan shown to the user ({done} of {len(args.entries)} steps done).")

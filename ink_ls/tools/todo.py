"""`todo_write`: the model keeps a visible to-do list on long work, sending the whole list each
time. Every front end shows it from the call's arguments (a checklist in the editors and the
terminal, ACP `plan` updates); the tool itself touches nothing and only acknowledges.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import Access, Tool, ToolContext, ToolParams, ToolResult

TODO_TOOL = "todo_write"
TodoStatus = Literal["pending", "in_progress", "completed"]
MARKS: dict[str, str] = {"pending": "☐", "in_progress": "◐", "completed": "☑"}
"""How a checklist marks each status (terminal, transcript)."""


class TodoItem(BaseModel):
    """One item of the list."""

    model_config = ConfigDict(extra="forbid")
    content: str = Field(min_length=1, description="What this step does, in a few words.")
    status: TodoStatus = Field(
        default="pending", description="pending, in_progress (one at a time) or completed."
    )


class TodoParams(ToolParams):
    todos: list[TodoItem] = Field(
        description="The whole list, every item in order; it replaces the previous list."
    )


def todos_of(args: Mapping[str, Any] | None) -> list[TodoItem] | None:
    """The items of a `todo_write` call's raw arguments (None when they do not validate)."""
    try:
        return TodoParams.model_validate(args or {}).todos
    except ValidationError:
        return None


def checklist(items: list[TodoItem]) -> list[str]:
    """`☑ step` lines, one per item (the terminal's and the transcript's rendering)."""
    return [f"{MARKS[item.status]} {item.content}" for item in items]


class TodoWriteTool(Tool[TodoParams]):
    """Shows the user the to-do list; safe beside anything (it touches no file, runs nothing)."""

    name = TODO_TOOL
    description = (
        "Keep a to-do list for work of several steps, visible to the user: send the whole "
        "list each time, each item pending, in_progress (one at a time) or completed, and "
        "update it as you go. Skip it for simple requests."
    )
    params_model = TodoParams
    concurrency_safe = True
    kind = "think"

    def title(self, args: Mapping[str, Any], cwd: Path) -> str:
        items = todos_of(args)
        if not items:
            return "to-do list"
        done = sum(1 for i in items if i.status == "completed")
        return f"to-do list ({done}/{len(items)} done)"

    def access(self, args: TodoParams, cwd: Path) -> Access | None:
        return Access()  # never asks for approval; plan mode lets it run

    async def execute(
        self, args: TodoParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        done = sum(1 for i in args.todos if i.status == "completed")
        lines = "\n".join(checklist(args.todos))
        return ToolResult(f"To-do list updated ({done} of {len(args.todos)} done):\n{lines}")

"""Agent events as the agent makes them, for tests of the consumers (the editor, the terminal)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ink_ls.agent.events import ToolStartEvent
from ink_ls.agent.pipeline import start_event
from ink_ls.core.messages import ToolCall
from ink_ls.core.tool import ToolRegistry
from ink_ls.tools.builtin import builtin_tools

_TOOLS = ToolRegistry(builtin_tools())


def started(
    *,
    tool_call_id: str,
    tool_name: str,
    arguments: dict[str, Any] | None = None,
    parent_tool_call_id: str | None = None,
    cwd: Path = Path("/ws"),
) -> ToolStartEvent:
    """The `tool_start` the scheduler emits for this call (titled and kinded by its tool)."""
    call = ToolCall(id=tool_call_id, name=tool_name, arguments="{}")
    event = start_event(call, _TOOLS, arguments, cwd)
    return event.model_copy(update={"parent_tool_call_id": parent_tool_call_id})

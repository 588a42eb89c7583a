"""The pre-execution gate (`on_tool_call`): where approvals and policies plug in.

A gate sees the validated arguments and may block a call with a source and reason.
It must return promptly when `signal` is cancelled.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import AnyTool, ToolParams


@dataclass(frozen=True)
class GateRequest:
    tool: AnyTool
    tool_call_id: str
    args: ToolParams
    cwd: Path


@dataclass(frozen=True)
class GateBlock:
    """A refusal: becomes `Tool "<name>" blocked by <source>: <reason or "no reason given">`
    (`Tool "<name>" was blocked: <reason>` when `source` is empty)."""

    source: str
    reason: str | None = None


Gate = Callable[[GateRequest, CancelSignal], Awaitable[GateBlock | None]]


async def allow_all(request: GateRequest, signal: CancelSignal) -> GateBlock | None:
    """The gate that blocks nothing."""
    return None

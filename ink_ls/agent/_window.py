"""What a batch runs in (`BatchEnv`), how the seed groups calls (`segments`), and the record
of one running call (`Slot`). Split from `scheduler` to keep that module to the scheduling."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ink_ls.agent._subagent import SubagentRunners
from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.events import EventSink, ignore_events
from ink_ls.agent.gate import Gate, allow_all
from ink_ls.core.messages import ToolCall
from ink_ls.core.tool import DiskFiles, DiskWriter, FileView, FileWriter, ToolRegistry

if TYPE_CHECKING:
    from ink_ls.hooks.engine import Hooks

DEFAULT_WINDOW = 5
DEFAULT_GRACE_SECONDS = 10.0


@dataclass
class BatchEnv:
    """Everything a batch needs besides its calls and signal."""

    tools: ToolRegistry
    cwd: Path
    gate: Gate = allow_all
    files: FileView = field(default_factory=DiskFiles)
    writer: FileWriter = field(default_factory=DiskWriter)
    subagent: SubagentRunners | None = None
    on_event: EventSink = ignore_events
    grace_seconds: float = DEFAULT_GRACE_SECONDS
    max_parallel: int = DEFAULT_WINDOW
    budget: ConcurrencyBudget | None = None
    """The process-wide budget; None means only the per-chunk window limits concurrency."""
    hooks: Hooks | None = None
    """The session's hooks (PreToolUse, PostToolUse), if any."""
    path_aware: bool = False
    """Calls with declared, disjoint paths overlap even if not safe. The agent always sets it
    from `AgentOptions.path_aware`, which is True by default; False here keeps a bare
    `BatchEnv` (as tests build it) on flag-only planning."""


def segments(calls: list[ToolCall], tools: ToolRegistry) -> list[list[int]]:
    """Call indices grouped into chunks: runs of safe calls, and each serial call alone.

    A call of an unknown tool never executes, so it does not break a chunk.
    """
    out: list[list[int]] = []
    current: list[int] = []
    for i, call in enumerate(calls):
        tool = tools.get(call.name)
        if tool is None or tool.concurrency_safe:
            current.append(i)
            continue
        if current:
            out.append(current)
            current = []
        out.append([i])
    if current:
        out.append(current)
    return out


@dataclass
class Slot:
    """A call that really runs: its task, start time, and its process-budget slot."""

    task: asyncio.Task[None]
    started: float
    budget: ConcurrencyBudget | None
    released: bool = False

    def release(self) -> None:
        """Give the budget slot back, once (an abandoned call may still end later)."""
        if not self.released:
            self.released = True
            if self.budget is not None:
                self.budget.release()

"""What a batch runs in: the tools, the workspace, the gate, the editor's file view and
writer, where events go, the window and grace limits and the process budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ink_ls.agent._subagent import SubagentRunners
from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.events import EventSink, ignore_events
from ink_ls.agent.gate import Gate, allow_all
from ink_ls.core.clock import SYSTEM_CLOCK, Clock
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
    clock: Clock = SYSTEM_CLOCK
    """Times calls and the grace deadline (tests move a `ManualClock` by hand)."""
    budget: ConcurrencyBudget | None = None
    """The process-wide budget; None means only the per-chunk window limits concurrency."""
    hooks: Hooks | None = None
    """The session's hooks (PreToolUse, PostToolUse), if any."""

"""The pre-execution gate (`on_tool_call`): where approvals and policies plug in.

A gate sees the validated arguments and may block a call with a source and reason.
It must return promptly when `signal` is cancelled.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import AnyTool, ToolParams

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GateRequest:
    tool: AnyTool
    tool_call_id: str
    args: ToolParams
    cwd: Path
    ask: str | None = None
    """Set when a hook asks that the user approve this call (its reason): the gate asks."""


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


def passes_unasked(gate: Gate, request: GateRequest) -> bool:
    """Whether `gate` would let this call through without asking anyone or blocking it.

    Side-effect free; used to start a call while the model is still streaming. A gate
    answers by having a `would_pass(request) -> bool` method; a gate without one (or one
    whose answer fails) counts as one that may ask, so its calls wait for the reply's end.
    """
    if gate is allow_all:
        return True
    would_pass = getattr(gate, "would_pass", None)
    if would_pass is None:
        return False
    try:
        return bool(would_pass(request))
    except Exception:
        log.exception("would_pass of the gate failed; the call waits for the reply's end")
        return False

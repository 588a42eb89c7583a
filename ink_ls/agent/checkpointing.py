"""The turn's gate with checkpoints: the workspace is recorded just before the first call the
gate lets through that may change files (see `checkpoints.recorder`)."""

from __future__ import annotations

from ink_ls.agent.gate import Gate, GateBlock, GateRequest, passes_unasked
from ink_ls.checkpoints.recorder import TurnCheckpoint, may_change_files
from ink_ls.core.signal import CancelSignal


class CheckpointGate:
    """`inner`, then — for an allowed call that may change files — the turn's snapshot."""

    def __init__(self, inner: Gate, turn: TurnCheckpoint) -> None:
        self._inner = inner
        self._turn = turn

    async def __call__(self, request: GateRequest, signal: CancelSignal) -> GateBlock | None:
        block = await self._inner(request, signal)
        if block is None and may_change_files(request.tool):
            await self._turn.before_change()
        return block

    def would_pass(self, request: GateRequest) -> bool:
        """As `inner` would (calls that start while the reply streams are read-only ones)."""
        return passes_unasked(self._inner, request)

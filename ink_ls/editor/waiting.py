"""The hook that tells the turn's progress a call is waiting for the user's approval.

Whoever sends an approval request (the prompter, the writer's reviewed `applyEdit`) brackets
the wait with `ApprovalWatch.waiting` / `resumed`; the per-turn reporter shows it. This module
only brackets waits: it decides nothing and sends nothing itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from ink_ls.agent.approval import ApprovalQuestion, Choice, Prompter
from ink_ls.core.signal import CancelSignal


class ApprovalWatch(Protocol):
    """Told when a call starts and stops waiting for the user (calls may overlap)."""

    def waiting(self, tool_call_id: str) -> None: ...

    def resumed(self, tool_call_id: str) -> None: ...


@contextmanager
def pending(watch: ApprovalWatch | None, tool_call_id: str) -> Iterator[None]:
    """Bracket one wait for the user; `resumed` runs however the wait ends."""
    if watch is None:
        yield
        return
    watch.waiting(tool_call_id)
    try:
        yield
    finally:
        watch.resumed(tool_call_id)


class WatchedPrompter:
    """A `Prompter` that reports its questions as waits to an `ApprovalWatch`."""

    def __init__(self, prompter: Prompter, watch: ApprovalWatch | None) -> None:
        self._prompter = prompter
        self._watch = watch

    async def __call__(self, question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        with pending(self._watch, question.tool_call_id):
            return await self._prompter(question, signal)

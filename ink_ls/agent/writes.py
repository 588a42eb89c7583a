"""The one write policy of every front end: whether a file change is refused, asked about or
made, and what the user's answer means.

A front end brings only its `ChangeChannel`: how it shows a change for approval (the editor's
prompt or diff view, the terminal's diff, ACP's permission request) and how the change reaches
the file (disk, `workspace/applyEdit`, the ACP client's fs). The mode, the "always" answers and
the approval timeout are the session's `ApprovalGate`'s, shared with command approvals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol, runtime_checkable

from ink_ls.agent.approval import ApprovalGate, Choice, WaitInterruptedError, wait_answer
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import ChangeRejectedError, DiskWriter, TextChange

READONLY_REFUSAL = "approval mode is readonly: files are not changed"


@dataclass(frozen=True)
class ProposedChange:
    """One file change a tool wants to make."""

    path: Path
    old_text: str | None
    """The text the change was computed from (None: a new file, or not known)."""
    new_text: str
    tool_name: str
    tool_call_id: str
    project_rules: tuple[str, ...] = ()
    """What "always in this project" saves for it (`Edit(./path)`); empty: not offered."""
    together: tuple[ProposedChange, ...] = ()
    """The other files' changes under the same decision (a rename): its question shows them
    all."""

    @property
    def all_files(self) -> tuple[ProposedChange, ...]:
        """This change and those made with it, in order."""
        return (self, *self.together)


@runtime_checkable
class BatchChannel(Protocol):
    """A channel that shows several files' changes as one (the editor's one `applyEdit`)."""

    async def apply_together(
        self, changes: Sequence[ProposedChange], *, approved: bool, signal: CancelSignal
    ) -> dict[Path, str]:
        """Make all `changes` (reviewed together unless `approved`); raises
        `ChangeRejectedError` when refused, then none is made. Returns the files where the
        user's version landed instead (they edited the proposal): path → its text."""
        ...


class ChangeChannel(Protocol):
    """A front end's way to show a change and to make it."""

    @property
    def reviews_on_apply(self) -> bool:
        """True when making the change is itself the user's review (an editor that shows
        `applyEdit` as a diff to accept): the policy then asks nothing first."""
        ...

    async def review(self, change: ProposedChange, signal: CancelSignal) -> Choice | None:
        """Show the change and return the user's choice (None: the question was dismissed)."""
        ...

    async def apply(
        self, change: ProposedChange, *, approved: bool, signal: CancelSignal
    ) -> str | None:
        """Make the change. `approved`: nobody is to be asked (mode `auto`); otherwise a
        channel that `reviews_on_apply` asks now. Raises `ChangeRejectedError` when refused.
        Returns None when the proposed text landed, else the text the user accepted instead
        (they edited the proposal while reviewing it)."""
        ...


@dataclass(frozen=True)
class DiskChannel:
    """Changes go straight to disk (the terminal without a question, tests, sub-agents). With
    `root`, a path named inside that workspace is written inside it, links resolved."""

    root: Path | None = None
    reviews_on_apply = False

    async def review(self, change: ProposedChange, signal: CancelSignal) -> Choice | None:
        return "allow_once"

    async def apply(
        self, change: ProposedChange, *, approved: bool, signal: CancelSignal
    ) -> str | None:
        await DiskWriter(self.root).write_text(
            change.path,
            change.new_text,
            old_text=change.old_text,
            tool_name=change.tool_name,
            tool_call_id=change.tool_call_id,
            signal=signal,
        )
        return None


class PolicyWriter:
    """The `FileWriter` of every front end: the policy here, the showing and writing in
    `channel`."""

    def __init__(self, gate: ApprovalGate, channel: ChangeChannel, cwd: Path | None = None) -> None:
        self.gate = gate
        self.channel = channel
        self.cwd = cwd
        """The workspace root ("always in this project" saves a rule relative to it)."""

    def _project_rules(self, path: Path) -> tuple[str, ...]:
        if self.gate.permissions is None or self.cwd is None:
            return ()
        try:
            return (f"Edit(./{path.relative_to(self.cwd).as_posix()})",)
        except ValueError:
            return ()

    async def write_text(
        self,
        path: Path,
        new_text: str,
        *,
        old_text: str | None,
        tool_name: str,
        tool_call_id: str,
        signal: CancelSignal,
    ) -> str | None:
        gate = self._gate_for_changes()
        change = ProposedChange(
            path, old_text, new_text, tool_name, tool_call_id, self._project_rules(path)
        )
        # a permission rule that allowed the call (or an ask rule answered) asks no more
        approved = gate.mode == "auto" or tool_call_id in gate.granted
        key = f"{tool_name}:change"
        if not approved and not self.channel.reviews_on_apply and key not in gate.always_allowed:
            await self._ask(change, key, signal)
        return await self.channel.apply(change, approved=approved, signal=signal)

    async def write_texts(
        self,
        changes: Sequence[TextChange],
        *,
        tool_name: str,
        tool_call_id: str,
        signal: CancelSignal,
    ) -> dict[Path, str]:
        """Several files' changes under one decision: one question (showing every file's
        diff), or one review of them all in an editor that reviews `applyEdit`; none is made
        when it is refused. Returns the files the user edited while reviewing (their text)."""
        gate = self._gate_for_changes()
        alone = [
            ProposedChange(c.path, c.old_text, c.new_text, tool_name, tool_call_id) for c in changes
        ]
        proposed = [replace(c, together=tuple(o for o in alone if o is not c)) for c in alone]
        approved = gate.mode == "auto" or tool_call_id in gate.granted
        key = f"{tool_name}:change"
        channel = self.channel
        if not approved and not channel.reviews_on_apply and key not in gate.always_allowed:
            await self._ask(proposed[0], key, signal)
            approved = True  # the one answer covers every file
        if isinstance(channel, BatchChannel):
            return await channel.apply_together(proposed, approved=approved, signal=signal)
        landed: dict[Path, str] = {}
        for change in proposed:
            text = await channel.apply(change, approved=approved, signal=signal)
            if text is not None and text != change.new_text:
                landed[change.path] = text
        return landed

    def _gate_for_changes(self) -> ApprovalGate:
        """The gate, refusing at once in a mode that changes no file."""
        if self.gate.mode in ("readonly", "plan"):
            raise ChangeRejectedError(
                "policy", f"approval mode is {self.gate.mode}: files are not changed"
            )
        return self.gate

    async def _ask(self, change: ProposedChange, key: str, signal: CancelSignal) -> None:
        try:
            choice = await wait_answer(
                self.channel.review(change, signal), timeout=self.gate.timeout, signal=signal
            )
        except WaitInterruptedError as exc:
            raise ChangeRejectedError("user", exc.reason) from None
        if choice == "allow_always":
            self.gate.always_allowed.add(key)
        elif choice == "allow_project" and change.project_rules and self.cwd is not None:
            self.gate.save_project_rules(change.project_rules, self.cwd)
        elif choice == "reject":
            raise ChangeRejectedError("user", "the user rejected this change")
        elif choice is None:
            raise ChangeRejectedError("user", "the approval prompt was dismissed")

"""The editor's change channel: file changes become `workspace/applyEdit`, then reach the disk.

The write policy (`agent.writes`) decides whether a change is asked about. When it is, the
editor's answer is the approval (a client that does not review edits itself is asked first
with the prompter). A file the user changed while the approval was pending is never
overwritten. A pre-approved change (mode `auto`) to a file open in the editor still goes
through `applyEdit`, marked (`"ink": {"approved": true}`, no review, no prompt), so the buffer
never goes stale; a file not open is written to disk directly.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ink_ls.agent.approval import (
    DEFAULT_APPROVAL_TIMEOUT,
    ApprovalQuestion,
    Choice,
    Prompter,
    WaitInterruptedError,
    wait_answer,
)
from ink_ls.agent.writes import ProposedChange
from ink_ls.core.fileio import write_in_workspace
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import ChangeRejectedError
from ink_ls.editor.client import ClientFeatures, EditorClient
from ink_ls.editor.documents import OpenDocuments, end_position, path_to_uri, uri_to_path
from ink_ls.editor.waiting import ApprovalWatch, pending
from ink_ls.protocol import lsp
from ink_ls.protocol.methods import APPLY_EDIT

STALE = "the file changed while the approval was pending; read it again and redo the change"
PRE_APPROVED: dict[str, Any] = {"approved": True}
"""The `ink` member of an `applyEdit` the user need not review (approval mode `auto`)."""


def _read_disk(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def _write_disk(path: Path, text: str, workspace: Path) -> None:
    write_in_workspace(path, text, workspace)  # the one link-safe writer of every front end


def change_summary(old: str | None, new: str) -> str:
    """`3 lines removed, 5 added` (or `new file, 12 lines`)."""
    import difflib  # on the first diff, not when the module loads

    if old is None:
        return f"new file, {len(new.splitlines())} lines"
    removed = added = 0
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith("-") and not line.startswith("---"):
            removed += 1
        elif line.startswith("+") and not line.startswith("+++"):
            added += 1
    return f"{removed} line{'s' if removed != 1 else ''} removed, {added} added"


@dataclass(frozen=True)
class _Answer:
    """What a reviewing client said besides `applied`: whether the user edited the proposal,
    and in which files (`"ink": {"edited": true, "files": [uri, …]}`)."""

    edited: bool = False
    files: frozenset[str] | None = None
    """The real paths of the files the client names as edited; None: not named (any of the
    edit's files may hold the user's version)."""

    def covers(self, path: Path) -> bool:
        """True when `path` may hold the user's version instead of the proposal."""
        return self.edited and (self.files is None or os.path.realpath(path) in self.files)

    @classmethod
    def of(cls, ink: object) -> _Answer:
        """Read from the answer's `ink` member (anything else: not edited)."""
        if not isinstance(ink, dict) or ink.get("edited") is not True:
            return cls()
        named = ink.get("files")
        if not isinstance(named, list):
            return cls(edited=True)
        paths = (uri_to_path(u) for u in named if isinstance(u, str))
        return cls(True, frozenset(os.path.realpath(p) for p in paths if p is not None))


@dataclass(frozen=True)
class _Asked:
    """What the buffer and the disk held when the user was asked about a change."""

    version: int | None
    base: str | None
    disk: str | None


@dataclass
class EditorChanges:
    """The editor's `ChangeChannel` for one session: a change is shown with the editor's prompt
    (or, for a client that reviews `applyEdit` itself, as its diff view) and made through
    `workspace/applyEdit`, so open buffers never go stale. The policy (`agent.writes`) decides
    whether it is asked about at all."""

    client: EditorClient
    features: ClientFeatures
    documents: OpenDocuments
    cwd: Path
    prompter: Prompter
    timeout: float = DEFAULT_APPROVAL_TIMEOUT
    """How long an `applyEdit` the user reviews may wait for their answer."""
    watch: ApprovalWatch | None = None
    """Told while a reviewed `applyEdit` waits for the user (the turn's progress shows it)."""
    _asked: dict[str, _Asked] = field(default_factory=dict)

    @property
    def reviews_on_apply(self) -> bool:
        return self.features.reviews_apply_edit

    def _relpath(self, path: Path) -> str:
        try:
            return str(path.resolve().relative_to(self.cwd.resolve()))
        except ValueError:
            return str(path)

    def build_edit(
        self,
        path: Path,
        base: str | None,
        new_text: str,
        version: int | None,
        label: str,
        *,
        tool_call_id: str,
        approved: bool = False,
    ) -> lsp.WorkspaceEdit:
        """A `WorkspaceEdit` replacing the whole document `base` by `new_text`, annotated with
        the call's id (`approved`: the annotation does not ask a generic client to confirm)."""
        features = self.features
        return lsp.whole_document_edit(
            path_to_uri(path),
            end=end_position(base or "", self.documents.encoding),
            new_text=new_text,
            version=version,
            create=base is None,
            # a new file needs a CreateFile first; without that support, plain `changes`
            document_changes=features.document_changes
            and (base is not None or features.create_files),
            annotation=(f"ink-{tool_call_id}", label, not approved)
            if features.change_annotations
            else None,
        )

    async def review(self, change: ProposedChange, signal: CancelSignal) -> Choice | None:
        """Ask with the editor's prompt; remember what the user saw, so a buffer they type
        into meanwhile is never replaced (`apply` checks)."""
        path = change.path
        doc = self.documents.get(path)
        disk = _read_disk(path)
        base = doc.text if doc is not None else disk
        self._check_base(change, base)
        self._asked[change.tool_call_id] = _Asked(doc.version if doc else None, base, disk)
        rel = self._relpath(path)
        question = ApprovalQuestion(
            tool_name=change.tool_name,
            tool_call_id=change.tool_call_id,
            kind="change",
            title=(
                f"{change.tool_name} {rel} ({change.tool_call_id}): "
                f"{change_summary(base, change.new_text)}"
                + (
                    f", with {', '.join(self._relpath(c.path) for c in change.together)}"
                    if change.together
                    else ""
                )
            ),
            detail=rel,
            project_rules=change.project_rules,
        )
        return await self.prompter(question, signal)

    @staticmethod
    def _check_base(change: ProposedChange, base: str | None) -> None:
        if change.old_text is not None and base is not None and base != change.old_text:
            raise ChangeRejectedError("user", STALE)

    def _check_unchanged(self, path: Path, asked: _Asked) -> None:
        now = self.documents.get(path)
        if now is not None and (now.text != asked.base or now.version != asked.version):
            raise ChangeRejectedError("user", STALE)
        if now is None and _read_disk(path) != asked.disk:
            raise ChangeRejectedError("user", STALE)

    async def apply(
        self, change: ProposedChange, *, approved: bool, signal: CancelSignal
    ) -> str | None:
        """Propose through `applyEdit`, then make sure the disk holds the new text (or the
        user's version of it: returned when they edited the proposal before accepting)."""
        path, new_text = change.path, change.new_text
        asked = self._asked.pop(change.tool_call_id, None)
        if asked is not None:  # the user may have typed while we asked
            self._check_unchanged(path, asked)
        disk_before = _read_disk(path)
        doc = self.documents.get(path)
        if approved and doc is None:
            _write_disk(path, new_text, self.cwd)  # no buffer to keep in step: disk only
            return None
        base = doc.text if doc is not None else disk_before
        self._check_base(change, base)
        label = f"ink: {change.tool_name} {self._relpath(path)} ({change.tool_call_id})"
        try:
            edited = await self._apply(
                path,
                base,
                new_text,
                doc.version if doc else None,
                label,
                signal,
                approved=approved,
                tool_call_id=change.tool_call_id,
            )
        except WaitInterruptedError as exc:
            raise ChangeRejectedError("user", exc.reason) from None
        if edited:
            return self._landed(path, new_text, disk_before)
        self._settle(path, base, new_text, disk_before)
        return None

    def _settle(self, path: Path, base: str | None, new_text: str, disk_before: str | None) -> None:
        """After the client applied a change: the buffer holds it (or is not open) and the
        disk holds it, written here when the client left it as it was; anything else is the
        user's doing meanwhile (`STALE`)."""
        now = self.documents.get(path)
        if now is not None and now.text not in (base, new_text):
            raise ChangeRejectedError("user", STALE)
        disk = _read_disk(path)
        if disk != new_text:
            if disk != disk_before:
                raise ChangeRejectedError("user", STALE)
            _write_disk(path, new_text, self.cwd)

    def _landed(self, path: Path, proposed: str, disk_before: str | None) -> str | None:
        """The user's version of an edited proposal: what the client saved (else its buffer,
        then written to disk here). None when it is the proposal after all."""
        disk = _read_disk(path)
        landed = disk
        if disk == disk_before:  # not saved by the client: its buffer holds the version
            now = self.documents.get(path)
            landed = now.text if now is not None else disk
            if landed is not None and landed != disk:
                _write_disk(path, landed, self.cwd)
        if landed is None:
            raise ChangeRejectedError(
                "editor", "the editor accepted an edited version but wrote no file"
            )
        return None if landed == proposed else landed

    async def _apply(
        self,
        path: Path,
        base: str | None,
        new_text: str,
        version: int | None,
        label: str,
        signal: CancelSignal,
        *,
        approved: bool,
        tool_call_id: str,
    ) -> bool:
        """Send the edit; True when a reviewing client says the user edited the proposal
        (`{"applied": true, "ink": {"edited": true}}`)."""
        edit = self.build_edit(
            path, base, new_text, version, label, tool_call_id=tool_call_id, approved=approved
        )
        answer = await self._send(edit, label, signal, approved=approved, tool_call_id=tool_call_id)
        return answer.edited

    async def _send(
        self,
        edit: lsp.WorkspaceEdit,
        label: str,
        signal: CancelSignal,
        *,
        approved: bool,
        tool_call_id: str,
    ) -> _Answer:
        """One `applyEdit`; raises `ChangeRejectedError` unless the editor applied it. Says
        whether a reviewing client reports the user's edits of the proposal (`"ink":
        {"edited": true}`); any other client's `ink` member is ignored."""
        params = lsp.apply_edit_params(label, edit)
        if approved and self.features.ink_plugin:  # only our plugins take the extra member
            params["ink"] = dict(PRE_APPROVED)
        # a reviewing client's answer is the user's decision: the turn waits for the user
        reviewed = self.features.reviews_apply_edit and not approved
        try:
            with pending(self.watch if reviewed else None, tool_call_id):
                answer = await wait_answer(
                    self.client.request(APPLY_EDIT, params),
                    timeout=self.timeout,
                    signal=signal,
                )
        except WaitInterruptedError:
            raise
        except Exception as exc:  # the editor answered with an error: nothing was applied
            raise ChangeRejectedError(
                "editor", f"the editor could not apply the edit: {exc}"
            ) from None
        applied = isinstance(answer, dict) and answer.get("applied") is True
        if not applied:
            reason = answer.get("failureReason") if isinstance(answer, dict) else None
            if approved:  # nobody was asked: the editor could not apply it
                raise ChangeRejectedError(
                    "editor", f"the editor did not apply the edit: {reason or 'no reason given'}"
                )
            raise ChangeRejectedError("user", str(reason or "the user rejected this change"))
        return _Answer.of(answer.get("ink")) if reviewed else _Answer()

    async def apply_together(
        self, changes: Sequence[ProposedChange], *, approved: bool, signal: CancelSignal
    ) -> dict[Path, str]:
        """Several files in one `applyEdit` (one review in an editor that reviews it; files
        not open are written to disk when pre-approved), then each file checked on disk.
        Returns the files where the user's edited version landed (path → its text)."""
        first = changes[0]
        asked = self._asked.pop(first.tool_call_id, None)
        if asked is not None:  # the user may have typed while we asked
            self._check_unchanged(first.path, asked)
        label = (
            f"ink: {first.tool_name} {len(changes)} files "
            f"({', '.join(self._relpath(c.path) for c in changes)}) ({first.tool_call_id})"
        )
        before: list[tuple[ProposedChange, str | None, str | None]] = []
        parts: list[lsp.WorkspaceEdit] = []
        for change in changes:
            doc = self.documents.get(change.path)
            disk = _read_disk(change.path)
            base = doc.text if doc is not None else disk
            self._check_base(change, base)
            before.append((change, base, disk))
            if not approved or doc is not None:
                parts.append(
                    self.build_edit(
                        change.path,
                        base,
                        change.new_text,
                        doc.version if doc else None,
                        label,
                        tool_call_id=first.tool_call_id,
                        approved=approved,
                    )
                )
        answer = _Answer()
        if parts:
            try:
                answer = await self._send(
                    lsp.merge_edits(parts),
                    label,
                    signal,
                    approved=approved,
                    tool_call_id=first.tool_call_id,
                )
            except WaitInterruptedError as exc:
                raise ChangeRejectedError("user", exc.reason) from None
        landed: dict[Path, str] = {}
        for change, base, disk_before in before:
            if answer.covers(change.path):  # the user's version, or the proposal after all
                text = self._landed(change.path, change.new_text, disk_before)
                if text is not None:
                    landed[change.path] = text
            else:
                self._settle(change.path, base, change.new_text, disk_before)
        return landed

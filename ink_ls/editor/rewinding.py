"""`ink/session/checkpoints`, `ink/session/changes` and `ink/session/rewind` for the editor:
open buffers follow a rewind through `workspace/applyEdit` before the disk is written, and a
buffer with unsaved changes the agent did not make is a conflict the user is asked about
(never overwritten silently). The rewind itself is `checkpoints.rewind`'s, the same for every
front end.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from ink_ls.agent.builtins import Rewinder
from ink_ls.checkpoints.recorder import open_repo
from ink_ls.checkpoints.review import turn_changes
from ink_ls.checkpoints.rewind import (
    Action,
    Decision,
    Hooks,
    RewindCancelledError,
    RewindError,
    rewind,
)
from ink_ls.checkpoints.shadow import ShadowError
from ink_ls.editor.client import ClientFeatures, EditorClient
from ink_ls.editor.documents import OpenDocuments, end_position, path_to_uri
from ink_ls.protocol import lsp
from ink_ls.protocol.checkpoints import wire_checkpoint, wire_checkpoints
from ink_ls.protocol.errors import InkErrorCode, InkRequestError, session_busy
from ink_ls.protocol.methods import APPLY_EDIT, SHOW_MESSAGE_REQUEST
from ink_ls.protocol.models import (
    ChangedFile,
    SessionChangesParams,
    SessionChangesResult,
    SessionCheckpointsResult,
    SessionRewindParams,
    SessionRewindResult,
)
from ink_ls.sessions.rewind_command import run_rewind

if TYPE_CHECKING:
    from ink_ls.editor.sessions import LiveSession, SessionBook
    from ink_ls.editor.settings import InkSettings
    from ink_ls.sessions.store import Session

log = logging.getLogger(__name__)


class Host(Protocol):
    """What a rewind needs of the editor's host (`editor.host.Host` is one): its client and
    what it offers, the workspace, the open buffers, the sessions and the current settings."""

    client: EditorClient
    cwd: Path
    documents: OpenDocuments
    features: ClientFeatures
    sessions: SessionBook

    @property
    def settings(self) -> InkSettings: ...


OVERWRITE, KEEP, CANCEL = "Overwrite", "Keep mine", "Cancel"


def _stored(host: Host, session_id: str) -> Session:
    session = host.sessions.get(session_id)
    if session.stored is None:
        raise InkRequestError(
            InkErrorCode.REWIND_FAILED, f"session {session_id} is not stored: it has no checkpoints"
        )
    return session.stored


def checkpoints(host: Host, session_id: str) -> SessionCheckpointsResult:
    """Every entry of the session (turns and rewinds), oldest first."""
    return wire_checkpoints(_stored(host, session_id).timeline)


def _nothing_lost(text: str, disk: str | None, action: Action) -> bool:
    """A buffer that differs from the disk but holds nothing of the user's: already the text
    the rewind restores (a deleted file's buffer kept open by the editor), or an empty buffer
    of a missing file (a diff view showing a deleted file)."""
    if disk is None and text == "":
        return True
    return action.blob is not None and action.data == text.encode("utf-8")


class _EditorHooks:
    def __init__(self, host: Host, target: int) -> None:
        self.host = host
        self.target = target

    def conflicts(self, actions: Sequence[Action]) -> list[str]:
        """Open buffers whose text is not what the disk holds: the user's unsaved edits."""
        out = []
        for action in actions:
            path = self.host.cwd / action.path
            doc = self.host.documents.get(path)
            if doc is None:
                continue
            try:
                disk = path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                disk = None
            if doc.text != disk and not _nothing_lost(doc.text, disk, action):
                out.append(action.path)
        return out

    async def ask(self, conflicts: list[str]) -> Decision:
        shown = ", ".join(conflicts[:8]) + (
            f" and {len(conflicts) - 8} more" if len(conflicts) > 8 else ""
        )
        message = (
            f"Rewind to before turn {self.target}: you changed {shown} since the agent did. "
            "Overwrite your changes, keep your version of these files, or cancel the rewind?"
        )
        ids = self.host.features.action_option_ids
        options: list[tuple[str, str | None]] = [
            (title, title.split()[0].lower() if ids else None)
            for title in (OVERWRITE, KEEP, CANCEL)
        ]
        answer = await self.host.client.request(
            SHOW_MESSAGE_REQUEST, lsp.show_message_request(message, options)
        )
        title = answer.get("title") if isinstance(answer, dict) else None
        if title == OVERWRITE:
            return "overwrite"
        return "keep" if title == KEEP else "cancel"

    async def before_write(self, actions: Sequence[Action]) -> None:
        """Open buffers take the restored text (a deleted file's buffer is deleted)."""
        documents, features = self.host.documents, self.host.features
        for action in actions:
            path = self.host.cwd / action.path
            doc = documents.get(path)
            if doc is None:
                continue
            label = f"ink: rewind {action.path}"
            if action.blob is None:
                if not (features.document_changes and features.delete_files):
                    continue  # the disk deletion is all such a client can follow
                edit = lsp.delete_file_edit(doc.uri)
            else:
                try:
                    text = action.data.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                edit = lsp.whole_document_edit(
                    doc.uri or path_to_uri(path),
                    end=end_position(doc.text, documents.encoding),
                    new_text=text,
                    version=doc.version,
                    create=False,
                    document_changes=features.document_changes,
                    annotation=None,
                )
            params = lsp.apply_edit_params(label, edit)
            if features.ink_plugin:  # our plugins apply it without a review
                params["ink"] = {"approved": True}
            try:
                await self.host.client.request(APPLY_EDIT, params)
            except Exception as exc:  # the disk is written anyway: the buffer reloads from it
                log.info("the editor did not take the rewind of %s: %s", action.path, exc)


async def changes(host: Host, params: SessionChangesParams) -> SessionChangesResult:
    """`ink/session/changes`: the files an entry (or the session) changed, texts before and
    after, for the editor's multi-file review."""
    stored = _stored(host, params.session_id)
    if params.turn is not None and stored.timeline.get(params.turn) is None:
        raise InkRequestError(
            InkErrorCode.REWIND_FAILED,
            f"there is no entry {params.turn}: the session has entries 1 to {stored.timeline.last}",
        )
    repo = open_repo(host.cwd, stored.state_dir, host.settings.checkpoints)
    try:
        found = await asyncio.to_thread(turn_changes, repo, stored, params.turn)
    except ShadowError as exc:
        raise InkRequestError(InkErrorCode.REWIND_FAILED, str(exc)) from None
    files = []
    for change in found:
        try:
            before = change.before.decode("utf-8") if change.before is not None else None
            after = change.after.decode("utf-8") if change.after is not None else None
        except UnicodeDecodeError:
            files.append(ChangedFile(path=change.path, status=_status(change.status), binary=True))
            continue
        files.append(
            ChangedFile(path=change.path, status=_status(change.status), before=before, after=after)
        )
    return SessionChangesResult(files=files)


def _status(status: str) -> Literal["added", "modified", "deleted"]:
    if status == "added":
        return "added"
    return "deleted" if status == "deleted" else "modified"


async def rewind_session(host: Host, params: SessionRewindParams) -> SessionRewindResult:
    """`ink/session/rewind`: restore files, conversation or both to before entry `turn`."""
    live = host.sessions.get(params.session_id)
    if live.turn is not None:
        raise session_busy(params.session_id)
    stored = _stored(host, params.session_id)
    hooks = _EditorHooks(host, params.turn)
    try:
        outcome = await rewind(
            stored,
            host.cwd,
            target=params.turn,
            restore=params.restore,
            state=stored.state_dir,
            settings=host.settings.checkpoints,
            hooks=Hooks(conflicts=hooks.conflicts, ask=hooks.ask, before_write=hooks.before_write),
            force=params.force,
        )
    except RewindCancelledError as exc:
        raise InkRequestError(InkErrorCode.REWIND_CANCELLED, str(exc)) from None
    except RewindError as exc:
        raise InkRequestError(InkErrorCode.REWIND_FAILED, str(exc)) from None
    live.messages[:] = stored.messages  # the next prompt continues from the rewound history
    live.wire.invalidate()
    live.turns = stored.timeline.last
    return SessionRewindResult(
        checkpoint=wire_checkpoint(outcome.entry), restored=outcome.restored, kept=outcome.kept
    )


def rewinder(live: LiveSession) -> Rewinder | None:
    """The `/rewind` built-in typed in a prompt: the files on disk (an open buffer without
    unsaved edits follows its file) and the conversation, as over ACP; None when the session
    is not stored."""
    stored = live.stored
    if stored is None:
        return None

    async def rewind_typed(text: str) -> str:
        answer = await run_rewind(stored, text)
        live.messages[:] = stored.messages  # the next prompt continues from the rewound history
        live.turns = stored.timeline.last
        return answer

    return rewind_typed

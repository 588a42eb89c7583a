"""Per-turn checkpoints of the workspace and their rewind (files); the conversation side is
the session file's (`sessions.store`). Public faces: `recorder`, `rewind`, `forget_session`."""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)


def session_prefix(session_id: str) -> str:
    """The refs under which a session's checkpoints are kept in the workspace's store."""
    return f"refs/ink/{session_id}/"


def forget_session(workspace: Path, session_id: str, *, state: Path) -> None:
    """Remove a deleted session's checkpoints (and the objects only they kept). Never raises:
    a store that cannot be cleaned now is cleaned by pruning later."""
    from ink_ls.checkpoints.shadow import ShadowError, ShadowRepo, store_for

    root = store_for(workspace, state)
    if not (root / "git" / "HEAD").is_file():
        return
    try:
        repo = ShadowRepo(workspace, root, max_file_bytes=0)
        repo.drop([ref for ref, _ in repo.refs(session_prefix(session_id))])
    except (ShadowError, OSError) as exc:
        log.warning("could not remove the checkpoints of session %s: %s", session_id, exc)

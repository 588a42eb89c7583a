"""What a turn (or the whole session) changed, file by file, with the text before it — for a
multi-file review in an editor (`ink/session/changes`). Reads the store; changes nothing."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ink_ls.checkpoints.recorder import Journal
from ink_ls.checkpoints.shadow import ShadowRepo
from ink_ls.checkpoints.timeline import Entry


@dataclass(frozen=True)
class Change:
    """One changed file: its status, its bytes before the change (None: it did not exist) and
    after it (None: deleted) — after the turn, or on disk now for the whole session."""

    path: str
    status: str
    before: bytes | None
    after: bytes | None


def _kept(entry: Entry, repo: ShadowRepo) -> bool:
    return (
        entry.before is not None
        and entry.after is not None
        and entry.before != entry.after
        and repo.has_tree(entry.before)
        and repo.has_tree(entry.after)
    )


def turn_changes(repo: ShadowRepo, journal: Journal, turn: int | None) -> list[Change]:
    """The changes of entry `turn`, or (None) the session's net changes: each file from before
    the first entry that changed it to the disk now (a file back as it was is left out).
    Blocking."""
    entries = journal.timeline.ordered()
    if turn is not None:
        entries = [e for e in entries if e.number == turn]
    entries = [e for e in entries if _kept(e, repo)]
    out: dict[str, Change] = {}
    seen: set[str] = set()
    for entry in entries:
        assert entry.before is not None and entry.after is not None
        for change in repo.changes(entry.before, entry.after):
            if change.path in seen:
                continue
            seen.add(change.path)
            old = repo.blob_at(entry.before, change.path)
            before = repo.read_blob(old.oid) if old is not None else None
            if turn is not None:
                new = repo.blob_at(entry.after, change.path)
                after = repo.read_blob(new.oid) if new is not None else None
                same_mode = True
            else:
                path = repo.workspace / change.path
                after = path.read_bytes() if path.is_file() else None
                executable = path.is_file() and os.access(path, os.X_OK)
                same_mode = old is None or (old.mode == "100755") == executable
            status = "added" if before is None else "deleted" if after is None else "modified"
            if before != after or not same_mode or turn is not None:
                out[change.path] = Change(change.path, status, before, after)
    return [out[p] for p in sorted(out)]

"""Checkpoint entries in their wire shape (`ink/session/checkpoints`, `ink-ls checkpoints
--json`): one converter for every front end."""

from __future__ import annotations

from typing import Literal

from ink_ls.checkpoints.timeline import Entry, Timeline
from ink_ls.protocol.models import Checkpoint, CheckpointFile, SessionCheckpointsResult

_STATUS: dict[str, Literal["added", "modified", "deleted"]] = {
    "added": "added",
    "modified": "modified",
    "deleted": "deleted",
}


def wire_checkpoint(entry: Entry) -> Checkpoint:
    """One entry as the wire shows it."""
    return Checkpoint(
        turn=entry.number,
        kind=entry.kind,
        prompt=entry.prompt,
        created_at=entry.created_at,
        rewound=entry.rewound,
        files=[
            CheckpointFile(
                path=f.path,
                status=_STATUS.get(f.status, "modified"),
                added=f.added,
                removed=f.removed,
            )
            for f in entry.files
        ],
        no_changes=not entry.changed,
        to=entry.target,
        restore=entry.restore,
        not_restorable=entry.not_restorable or None,
        conflicts=entry.conflicts or None,
    )


def wire_checkpoints(timeline: Timeline) -> SessionCheckpointsResult:
    """Every entry of a session, oldest first."""
    return SessionCheckpointsResult(checkpoints=[wire_checkpoint(e) for e in timeline.ordered()])

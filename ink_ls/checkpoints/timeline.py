"""A session's checkpoint entries, rebuilt from the records its session file holds.

Entries are numbered 1, 2, … in the order they happen and numbers are never reused: a turn
(one prompt) takes the next number when it starts, a rewind takes the next number too. The
records, one JSON line each, are written by the recorder and the rewinder:
`{"type": "turn", "entry", "at", "prompt"}`, `{"type": "rewind", "entry", "at", "to",
"restore", "tree", "skipped"}` and `{"type": "checkpoint", "entry", "stage": "before" | "after",
"tree", "skipped", …}`. This module knows no files and no git: only the bookkeeping.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Restore = Literal["files", "conversation", "both"]
RESTORES: tuple[Restore, ...] = ("files", "conversation", "both")
RECORD_TYPES = frozenset({"turn", "rewind", "checkpoint"})
"""The session-file record types this module reads."""


@dataclass(frozen=True)
class FileStat:
    """One file an entry changed: status "added" | "modified" | "deleted", line counts (None
    for a binary change)."""

    path: str
    status: str
    added: int | None
    removed: int | None

    def record(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "added": self.added,
            "removed": self.removed,
        }


@dataclass
class Entry:
    """One turn or rewind of a session, with the workspace before and after it (when it
    changed files; a turn that changed nothing has `before` None or equal to `after`)."""

    number: int
    kind: Literal["turn", "rewind"]
    prompt: str
    created_at: str
    target: int | None = None
    """For a rewind: the entry it went back to (the state just before that entry)."""
    restore: Restore | None = None
    before: str | None = None
    before_skipped: str | None = None
    after: str | None = None
    after_skipped: str | None = None
    files: list[FileStat] = field(default_factory=list)
    not_restorable: dict[str, str] = field(default_factory=dict)
    """Files the entry changed that the store could not keep (path → why)."""
    conflicts: list[str] = field(default_factory=list)
    """For a rewind: files the user had changed, left as they were."""
    line_before: tuple[int, ...] = ()
    """The entries in effect just before this one (what rewinding to it returns to)."""
    rewound: bool = False

    @property
    def changed(self) -> bool:
        """Whether the entry changed any file (as far as recorded)."""
        return bool(self.files) or bool(self.not_restorable)

    @property
    def finished(self) -> bool:
        """Whether the end of the entry was recorded (a killed process leaves it open)."""
        return self.before is None or self.after is not None


class Timeline:
    """The entries of one session, and which of them are in effect (`line`)."""

    def __init__(self) -> None:
        self.entries: dict[int, Entry] = {}
        self.line: tuple[int, ...] = ()

    @property
    def last(self) -> int:
        """The highest entry number so far (0 before any)."""
        return max(self.entries, default=0)

    def get(self, number: int) -> Entry | None:
        return self.entries.get(number)

    def ordered(self) -> list[Entry]:
        return [self.entries[n] for n in sorted(self.entries)]

    def apply(self, record: dict[str, Any]) -> Entry:
        """Take one record into account; `ValueError`/`KeyError` when it does not fit."""
        kind = record["type"]
        number = int(record["entry"])
        if kind in ("turn", "rewind"):
            if number in self.entries or number <= self.last:
                raise ValueError(f"entry {number} is not after entry {self.last}")
            entry = Entry(
                number,
                kind,
                str(record.get("prompt", "")),
                str(record.get("at", "")),
                line_before=self.line,
            )
            if kind == "rewind":
                target = self.entries[int(record["to"])]
                restore = record.get("restore", "both")
                if restore not in RESTORES:
                    raise ValueError(f"unknown restore {restore!r}")
                entry.target, entry.restore = target.number, restore
                entry.prompt = entry.prompt or f"rewind to {target.number} ({restore})"
                entry.before, entry.before_skipped = record.get("tree"), record.get("skipped")
                self.line = (*target.line_before, number)
            else:
                self.line = (*self.line, number)
            self.entries[number] = entry
            self._mark()
            return entry
        if kind != "checkpoint":
            raise ValueError(f"not a checkpoint record: {kind}")
        entry = self.entries[number]
        if record.get("stage") == "before":
            entry.before, entry.before_skipped = record["tree"], record.get("skipped")
        else:
            entry.after, entry.after_skipped = record["tree"], record.get("skipped")
            entry.files = [
                FileStat(f["path"], f["status"], f.get("added"), f.get("removed"))
                for f in record.get("files", [])
            ]
            entry.not_restorable = dict(record.get("notRestorable", {}))
            entry.conflicts = list(record.get("conflicts", []))
        return entry

    def _mark(self) -> None:
        on_line = set(self.line)
        for entry in self.entries.values():
            entry.rewound = entry.number not in on_line


def turn_record(number: int, at: str, prompt: str) -> dict[str, Any]:
    return {"type": "turn", "entry": number, "at": at, "prompt": prompt}


def rewind_record(
    number: int, at: str, *, to: int, restore: Restore, tree: str | None, skipped: str | None
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "rewind",
        "entry": number,
        "at": at,
        "to": to,
        "restore": restore,
    }
    if tree is not None:
        record.update(tree=tree, skipped=skipped)
    return record


def before_record(number: int, tree: str, skipped: str | None) -> dict[str, Any]:
    return {
        "type": "checkpoint",
        "entry": number,
        "stage": "before",
        "tree": tree,
        "skipped": skipped,
    }


def after_record(
    number: int,
    tree: str,
    skipped: str | None,
    *,
    files: list[FileStat],
    not_restorable: dict[str, str],
    conflicts: list[str] | None = None,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "checkpoint",
        "entry": number,
        "stage": "after",
        "tree": tree,
        "skipped": skipped,
        "files": [f.record() for f in files],
        "notRestorable": not_restorable,
    }
    if conflicts:
        record["conflicts"] = conflicts
    return record

"""One turn's checkpoint: the entry is numbered when the prompt starts, the workspace is
recorded just before the turn's first call that may change files (edit, write, a command,
any tool that is not read-only) and again when the turn ends.

A turn that calls nothing that may change files records no checkpoint; one whose snapshots
are equal records "no changes". The turn builder uses it (`begin_turn`, `before_change` from
its gate, `finish`); it never blocks the event loop (git runs in a thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from ink_ls.checkpoints import session_prefix
from ink_ls.checkpoints.settings import CheckpointSettings
from ink_ls.checkpoints.shadow import ShadowError, ShadowRepo, Snapshot, store_for
from ink_ls.checkpoints.timeline import (
    Entry,
    FileStat,
    Timeline,
    after_record,
    before_record,
    turn_record,
)
from ink_ls.core.tool import AnyTool

log = logging.getLogger(__name__)

PRUNE_EVERY = 3600.0
"""Seconds between two prunings of one workspace's store."""
FRESH_SECONDS = 2.0
"""A snapshot started longer ago than this when the first change comes is taken again."""


class Journal(Protocol):
    """Where a session keeps its checkpoint records (`sessions.store.Session`)."""

    id: str
    timeline: Timeline

    @property
    def state_dir(self) -> Path:
        """The state directory (the workspace's shadow store lives under it)."""
        ...

    def record(self, record: dict[str, Any]) -> None: ...


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def may_change_files(tool: AnyTool) -> bool:
    """Whether a call of `tool` may change the workspace (anything not read-only)."""
    return not tool.concurrency_safe or tool.kind in ("edit", "execute")


def open_repo(workspace: Path, state: Path, settings: CheckpointSettings) -> ShadowRepo:
    """The shadow store of `workspace` under the state directory `state`."""
    return ShadowRepo(
        workspace, store_for(workspace, state), max_file_bytes=settings.max_file_bytes
    )


def entry_files(
    repo: ShadowRepo, before: Snapshot, after: Snapshot
) -> tuple[list[FileStat], dict[str, str]]:
    """What changed from `before` to `after`: restorable files, and the ones left out."""
    left_out = repo.skipped_changes(before.skipped, after.skipped)
    out = set(repo.skipped(before.skipped)) | set(repo.skipped(after.skipped))
    files = [
        FileStat(c.path, c.status, c.added, c.removed)
        for c in repo.changes(before.tree, after.tree)
        if c.path not in out
    ]
    return files, left_out


def close_open_entries(
    journal: Journal, repo: ShadowRepo, snapshot: Snapshot
) -> list[dict[str, Any]]:
    """The records that end the entries a killed process left open, with `snapshot` (the
    next state known) as their end, so their files can be rewound. Blocking; the caller
    writes the records (on the event loop)."""
    records = []
    for entry in journal.timeline.ordered():
        if not entry.finished and entry.before is not None:
            before = Snapshot(entry.before, entry.before_skipped)
            files, left_out = entry_files(repo, before, snapshot)
            records.append(
                after_record(
                    entry.number,
                    snapshot.tree,
                    snapshot.skipped,
                    files=files,
                    not_restorable=left_out,
                )
            )
            keep(repo, journal, entry.number, "after", snapshot.tree)
    return records


def keep(repo: ShadowRepo, journal: Journal, number: int, stage: str, tree: str) -> None:
    repo.keep(
        f"{session_prefix(journal.id)}{number}/{stage}", tree, message=f"{journal.id} {number}"
    )


class TurnCheckpoint:
    """The checkpoint of one running turn (entry `number` of `journal`)."""

    def __init__(
        self, journal: Journal, repo: ShadowRepo | None, number: int, settings: CheckpointSettings
    ) -> None:
        self.journal = journal
        self.repo = repo
        self.number = number
        self.settings = settings
        self._before: Snapshot | None = None
        self._taking: asyncio.Future[tuple[Snapshot, list[dict[str, Any]]] | None] | None = None
        self._taken_at = 0.0
        self._recording = asyncio.Lock()
        self.error: str | None = None
        """Why the store could not record this turn (the turn itself goes on)."""

    @property
    def entry(self) -> Entry | None:
        return self.journal.timeline.get(self.number)

    @property
    def prefetching(self) -> bool:
        """Whether the snapshot before the turn's first change has started."""
        return self._taking is not None

    def prefetch(self) -> None:
        """Start the snapshot now, in a thread, while the model thinks: the turn's first
        change then waits only for what is left of it (a workspace's first snapshot hashes
        every file). Nothing is recorded yet: a turn that changes nothing records nothing."""
        if self.repo is not None and self._taking is None:
            self._taken_at = time.monotonic()
            self._taking = asyncio.ensure_future(asyncio.to_thread(self._take_before))

    async def before_change(self) -> None:
        """Record the workspace once, before the turn's first change (concurrent callers
        wait for the same record; a cancelled caller does not stop it)."""
        if self.repo is None or self._before is not None:
            return
        async with self._recording:
            if self._before is not None:
                return
            self.prefetch()
            assert self._taking is not None
            taken = await asyncio.shield(self._taking)
            if taken is not None and time.monotonic() - self._taken_at > FRESH_SECONDS:
                # the user may have saved files while the model thought: take the state now
                # (cheap: the prefetch left the index warm, only changed files are read)
                self._taken_at = time.monotonic()
                self._taking = asyncio.ensure_future(asyncio.to_thread(self._take_before))
                taken = await asyncio.shield(self._taking)
            if taken is None:
                return
            snapshot, records = taken
            try:
                await asyncio.to_thread(
                    keep, self.repo, self.journal, self.number, "before", snapshot.tree
                )
            except ShadowError as exc:
                self.error = str(exc)
                log.warning("checkpoint of turn %d not kept: %s", self.number, exc)
                return
            for record in records:
                self.journal.record(record)
            self.journal.record(before_record(self.number, snapshot.tree, snapshot.skipped))
            self._before = snapshot

    async def settled(self) -> None:
        """Wait for a snapshot still running in the background (its turn is over)."""
        if self._taking is not None:
            await asyncio.shield(self._taking)

    def _take_before(self) -> tuple[Snapshot, list[dict[str, Any]]] | None:
        assert self.repo is not None
        try:
            snapshot = self.repo.snapshot()
            records = close_open_entries(self.journal, self.repo, snapshot)
        except ShadowError as exc:
            self.error = str(exc)
            log.warning("checkpoint of turn %d not taken: %s", self.number, exc)
            return None
        return snapshot, records

    async def finish(self) -> Entry | None:
        """Record the end of the turn (when it took a snapshot); returns its entry."""
        async with self._recording:  # a first change being recorded ends first
            pass
        # a prefetch of a turn that changed nothing goes on alone (it writes no record)
        if self.repo is not None and self._before is not None:
            record = await asyncio.to_thread(self._take_after, self._before)
            if record is not None:
                self.journal.record(record)
        return self.entry

    def _take_after(self, before: Snapshot) -> dict[str, Any] | None:
        assert self.repo is not None
        try:
            after = self.repo.snapshot()
            files, left_out = entry_files(self.repo, before, after)
            if files or left_out:
                keep(self.repo, self.journal, self.number, "after", after.tree)
            else:  # nothing changed: no checkpoint is kept, the entry says "no changes"
                self.repo.unkeep(f"{session_prefix(self.journal.id)}{self.number}/before")
        except ShadowError as exc:
            self.error = str(exc)
            log.warning("end of the checkpoint of turn %d not taken: %s", self.number, exc)
            return None
        try:
            prune(self.repo, self.settings)
        except (ShadowError, OSError) as exc:
            log.warning("pruning checkpoints failed: %s", exc)
        return after_record(
            self.number, after.tree, after.skipped, files=files, not_restorable=left_out
        )


def begin_turn(
    journal: Journal | None,
    workspace: Path,
    prompt: str,
    *,
    settings: CheckpointSettings | None = None,
    prefetch: bool = True,
) -> TurnCheckpoint | None:
    """Number a new turn of `journal` (recorded at once) and prepare its checkpoint (with
    `prefetch`, its snapshot starts now, in a thread; else at the caller's `prefetch()` or
    the first change); None without a journal (a session not stored)."""
    if journal is None:
        return None
    settings = settings or CheckpointSettings.from_env()
    repo = None
    state = journal.state_dir
    if settings.enabled:
        try:
            repo = open_repo(workspace, state, settings)
        except ShadowError as exc:
            log.warning("checkpoints are off: %s", exc)
    number = journal.timeline.last + 1
    journal.record(turn_record(number, now(), prompt))
    turn = TurnCheckpoint(journal, repo, number, settings)
    if prefetch:
        with contextlib.suppress(RuntimeError):  # no running loop: the snapshot waits
            asyncio.get_running_loop()
            turn.prefetch()
    return turn


def prune(repo: ShadowRepo, settings: CheckpointSettings, *, force: bool = False) -> list[str]:
    """Drop checkpoints older than the age limit, then the oldest while the store is larger
    than its limit; at most once an hour per store unless `force`. Returns the dropped refs."""
    stamp = repo.root / "pruned"
    if not force and stamp.exists() and time.time() - stamp.stat().st_mtime < PRUNE_EVERY:
        return []
    stamp.touch()
    repo.tidy()
    refs = repo.refs()
    limit = time.time() - settings.max_age_days * 86400
    old = [ref for ref, when in refs if when < limit]
    repo.drop(old, expire="now")
    dropped = list(old)
    refs = [r for r in refs if r[0] not in set(old)]
    cap = settings.max_store_mb * 1024 * 1024
    while refs and repo.disk_bytes() > cap:
        cut = max(1, len(refs) // 10)
        batch = [ref for ref, _ in refs[:cut]]
        repo.drop(batch, expire="now")
        dropped += batch
        refs = refs[cut:]
    return dropped

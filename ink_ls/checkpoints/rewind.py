"""Rewind: back to the state just before entry N — its files, its conversation, or both.

Only files that an entry from N on changed are touched; each goes back to what it was just
before the first of those entries changed it (a file created since is deleted, a deleted one
comes back, modes are kept). A file the user changed since an entry changed it is a conflict:
named, and left alone unless the caller says to overwrite it. Every rewind is itself an entry
(numbered after the last) holding the files and conversation from just before it, so
rewinding to it undoes it.

"Never half": each file is replaced by a rename of a complete, fsynced temp file made in the
store's directory (`fileio.atomic_replace`), so a process killed mid-rewind leaves every file
whole — as before the rewind or as after it — and nothing of ours in the workspace.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ink_ls.checkpoints.recorder import (
    Journal,
    close_open_entries,
    entry_files,
    keep,
    now,
    open_repo,
)
from ink_ls.checkpoints.settings import CheckpointSettings
from ink_ls.checkpoints.shadow import Blob, ShadowError, ShadowRepo, Snapshot
from ink_ls.checkpoints.timeline import Entry, Restore, after_record, rewind_record
from ink_ls.core.fileio import FileWriteError, atomic_replace, inside

Decision = Literal["overwrite", "keep", "cancel"]


class RewindError(Exception):
    """A rewind that cannot be done (no such entry, pruned checkpoints); a sentence."""


class RewindCancelledError(RewindError):
    """The user chose not to rewind over their changes; nothing was changed."""


class RewindConflictError(RewindError):
    """Files the user changed would be overwritten and nobody was asked (`conflicts`)."""

    def __init__(self, conflicts: list[str]) -> None:
        super().__init__(
            "the user changed these files since the agent did: "
            + ", ".join(conflicts)
            + "; rewind again with --force to overwrite them, or save them elsewhere first"
        )
        self.conflicts = conflicts


@dataclass(frozen=True)
class Action:
    """One file to restore: its content and mode (`blob`), or None to delete it."""

    path: str
    blob: Blob | None
    data: bytes = b""


@dataclass
class Plan:
    """What a rewind to `target` would do to the files."""

    target: int
    now: Snapshot
    actions: list[Action] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    not_restorable: dict[str, str] = field(default_factory=dict)


@dataclass
class Hooks:
    """What a front end adds: files it knows to be in conflict (unsaved buffers), how it asks
    about conflicts (None: refuse with `RewindConflictError` unless `force`), and what it does
    before the disk is written (an editor updates its open buffers)."""

    conflicts: Callable[[Sequence[Action]], list[str]] | None = None
    ask: Callable[[list[str]], Awaitable[Decision]] | None = None
    before_write: Callable[[Sequence[Action]], Awaitable[None]] | None = None


@dataclass
class Outcome:
    """A finished rewind: its own entry (rewind to it to undo), the files it restored, the
    conflicts it left as the user had them and the files it could not restore."""

    entry: Entry
    restored: list[str]
    kept: list[str]
    not_restorable: dict[str, str]


def _chain(journal: Journal, target: int) -> list[Entry]:
    return [
        e
        for e in journal.timeline.ordered()
        if e.number >= target
        and e.before is not None
        and e.after is not None
        and e.before != e.after  # an entry that changed nothing keeps no checkpoint
    ]


def plan(repo: ShadowRepo, journal: Journal, target: int, current: Snapshot) -> Plan:
    """The file side of a rewind to `target` against the workspace `current`. Blocking.

    Git is asked in batches (one `ls-tree` per tree, one `cat-file --batch`), not per file."""
    result = Plan(target, current)
    chain = _chain(journal, target)
    trees = {t for e in chain for t in (e.before, e.after) if t is not None}
    lost = repo.missing_trees(trees)
    for entry in chain:
        if entry.before in lost or entry.after in lost:
            raise RewindError(
                f"the checkpoints of entry {entry.number} were pruned; only the "
                "conversation can be rewound to before it"
            )
    first: dict[str, int] = {}
    for index, entry in enumerate(chain):
        assert entry.before is not None and entry.after is not None
        result.not_restorable.update(entry.not_restorable)
        for path in repo.changed_paths(entry.before, entry.after):
            first.setdefault(path, index)
    if not first:
        return result
    targets: dict[str, Blob | None] = {}
    for index, entry in enumerate(chain):  # each path as it was before its first change
        assert entry.before is not None
        paths = [p for p, i in first.items() if i == index]
        held = repo.blobs_at(entry.before, paths) if paths else {}
        targets.update({p: held.get(p) for p in paths})
    # the user's changes: between one entry's end and the next one's start, and since the last
    gaps: list[set[str]] = []
    for index, entry in enumerate(chain):
        after = entry.after
        assert after is not None
        upto = chain[index + 1].before if index + 1 < len(chain) else current.tree
        assert upto is not None
        gaps.append(repo.changed_paths(after, upto))
    now = repo.blobs_at(current.tree, targets)
    todo: list[str] = []
    for path in sorted(targets):
        if any(path in gap for gap in gaps[first[path] :]):
            result.conflicts.append(path)
        blob = targets[path]
        if blob == now.get(path) and (blob is not None or not (repo.workspace / path).is_symlink()):
            continue  # already as it was
        todo.append(path)
    data = repo.read_blobs(b.oid for p in todo if (b := targets[p]) is not None)
    for path in todo:
        blob = targets[path]
        result.actions.append(Action(path, blob, data[blob.oid] if blob is not None else b""))
    skipped = repo.skipped(current.skipped)
    for path in targets:  # now too large or binary: the store never saw what the user has
        if path in skipped and path not in result.conflicts:
            result.conflicts.append(path)
    return result


def apply(repo: ShadowRepo, actions: Sequence[Action]) -> list[str]:
    """Write the planned files (each atomically), delete the created ones. Blocking."""
    done = []
    root = Path(os.path.realpath(repo.workspace))
    for action in actions:
        path = repo.workspace / action.path
        if not inside(Path(os.path.realpath(path.parent)), root):
            # a directory on the way became a link out of the workspace: never write there
            raise RewindError(
                f"{action.path} is not restored: its directory now leads outside the workspace"
            )
        if action.blob is None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            _remove_empty_parents(path.parent, repo.workspace)
        else:
            mode = int(action.blob.mode, 8)
            link = action.blob.mode == "120000"
            try:
                atomic_replace(path, action.data, mode=mode, link=link, temp_dir=repo.temp_dir)
            except FileWriteError as exc:
                raise RewindError(f"{action.path} could not be restored: {exc.strerror}") from None
        done.append(action.path)
    return done


def _remove_empty_parents(directory: Path, root: Path) -> None:
    while directory != root and root in directory.parents:
        try:
            os.rmdir(directory)
        except OSError:
            return
        directory = directory.parent


async def rewind(
    journal: Journal,
    workspace: Path,
    *,
    target: int,
    restore: Restore,
    state: Path,
    settings: CheckpointSettings | None = None,
    hooks: Hooks | None = None,
    force: bool = False,
) -> Outcome:
    """Rewind `journal`'s session to just before entry `target`; see the module docstring.
    Raises `RewindError` (nothing changed) for a bad target, pruned checkpoints, conflicts
    nobody may decide on, or a cancel."""
    hooks = hooks or Hooks()
    last = journal.timeline.last
    if not 1 <= target <= last or journal.timeline.get(target) is None:
        raise RewindError(
            f"there is no entry {target}: the session has entries 1 to {last}"
            if last
            else "the session has no turns yet"
        )
    settings = settings or CheckpointSettings.from_env()
    files = restore in ("files", "both")
    repo = open_repo(workspace, state, settings) if files else None
    current: Snapshot | None = None
    work: Plan | None = None
    kept: list[str] = []
    if repo is not None:
        try:
            current = await asyncio.to_thread(repo.snapshot)
            for record in await asyncio.to_thread(close_open_entries, journal, repo, current):
                journal.record(record)
            work = await asyncio.to_thread(plan, repo, journal, target, current)
        except ShadowError as exc:
            raise RewindError(f"the checkpoint store failed: {exc}") from None
        planned = {a.path for a in work.actions}
        extra = hooks.conflicts(work.actions) if hooks.conflicts is not None else []
        conflicts = sorted({p for p in work.conflicts if p in planned} | set(extra))
        if conflicts and not force:
            if hooks.ask is None:
                raise RewindConflictError(conflicts)
            decision = await hooks.ask(conflicts)
            if decision == "cancel":
                raise RewindCancelledError("rewind cancelled: nothing was changed")
            if decision == "keep":
                kept = conflicts
                work.actions = [a for a in work.actions if a.path not in set(kept)]
    number = last + 1
    journal.record(
        rewind_record(
            number,
            now(),
            to=target,
            restore=restore,
            tree=current.tree if current is not None else None,
            skipped=current.skipped if current is not None else None,
        )
    )
    restored: list[str] = []
    left_out: dict[str, str] = {}
    if repo is not None and work is not None and current is not None:
        if hooks.before_write is not None and work.actions:
            await hooks.before_write(work.actions)
        restored = await asyncio.to_thread(apply, repo, work.actions)
        # only the files it wrote changed: no second walk of the workspace
        after = await asyncio.to_thread(repo.snapshot_paths, current, restored)
        changed, left_out = await asyncio.to_thread(entry_files, repo, current, after)
        await asyncio.to_thread(keep, repo, journal, number, "before", current.tree)
        await asyncio.to_thread(keep, repo, journal, number, "after", after.tree)
        left_out = {**work.not_restorable, **left_out}
        journal.record(
            after_record(
                number,
                after.tree,
                after.skipped,
                files=changed,
                not_restorable=left_out,
                conflicts=kept,
            )
        )
    entry = journal.timeline.get(number)
    assert entry is not None
    return Outcome(entry, restored, kept, left_out)

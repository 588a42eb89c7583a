"""Checkpoints and rewind on a real temp workspace and a real shadow store (git), driven the way
the turn builder drives them: `begin_turn`, `before_change`, `finish`, then `rewind`."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ink_ls.checkpoints.recorder import begin_turn, prune
from ink_ls.checkpoints.rewind import (
    Decision,
    Hooks,
    RewindCancelledError,
    RewindConflictError,
    RewindError,
    rewind,
)
from ink_ls.checkpoints.settings import CheckpointSettings
from ink_ls.checkpoints.shadow import ShadowRepo, store_for
from ink_ls.sessions.store import Session, SessionStore

SMALL = CheckpointSettings(max_file_mb=0.001)  # 1,048 bytes: "larger" is easy to make


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "keep.txt").write_text("keep\n")
    return root


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "state" / "sessions")


async def turn(
    session: Session,
    ws: Path,
    prompt: str,
    change: Callable[[], object] | None = None,
    settings: CheckpointSettings | None = None,
) -> None:
    """One turn; `change` runs after the snapshot taken before the first change."""
    checkpoint = begin_turn(session, ws, prompt, settings=settings)
    assert checkpoint is not None
    if change is not None:
        await checkpoint.before_change()
        change()
    await checkpoint.finish()
    await checkpoint.settled()


async def test_a_turn_without_changes_records_no_checkpoint(ws: Path, store: SessionStore) -> None:
    session = store.create(cwd=ws)
    await turn(session, ws, "just look")
    entry = session.timeline.get(1)
    assert entry is not None and entry.before is None and not entry.changed
    repo = ShadowRepo(ws, store_for(ws, session.state_dir), max_file_bytes=1)
    assert repo.refs() == []
    # rewinding to it is still valid (the conversation goes back to before its prompt)
    outcome = await rewind(session, ws, target=1, restore="both", state=session.state_dir)
    assert outcome.entry.number == 2 and outcome.restored == []
    assert session.messages == []


async def test_symlinks_nested_dirs_ignored_and_large_files(ws: Path, store: SessionStore) -> None:
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build").mkdir()
    (ws / "build" / "out.o").write_text("old build\n")
    (ws / "big.log").write_text("x" * 5000)
    (ws / "blob.bin").write_bytes(b"\0\1\2")
    session = store.create(cwd=ws)

    def change() -> None:
        (ws / "deep" / "er").mkdir(parents=True)
        (ws / "deep" / "er" / "new.py").write_text("new\n")
        os.symlink("keep.txt", ws / "link")
        (ws / "build" / "out.o").write_text("new build\n")
        (ws / "big.log").write_text("y" * 6000)
        (ws / "blob.bin").write_bytes(b"\0\x09")

    await turn(session, ws, "make things", change, SMALL)
    entry = session.timeline.get(1)
    assert entry is not None
    assert [f.path for f in entry.files] == ["deep/er/new.py", "link"]
    assert entry.not_restorable == {
        "big.log": "larger than 1048 bytes",
        "blob.bin": "binary",
    }
    outcome = await rewind(
        session, ws, target=1, restore="files", state=session.state_dir, settings=SMALL
    )
    assert sorted(outcome.restored) == ["deep/er/new.py", "link"]
    assert not (ws / "deep").exists()  # directories the turn made and left empty go too
    assert not os.path.lexists(ws / "link")
    assert (ws / "build" / "out.o").read_text() == "new build\n"  # ignored: never touched
    assert outcome.not_restorable == {"big.log": "larger than 1048 bytes", "blob.bin": "binary"}


async def test_user_changes_between_turns_are_conflicts(ws: Path, store: SessionStore) -> None:
    session = store.create(cwd=ws)
    await turn(session, ws, "one", lambda: (ws / "a.py").write_text("agent 1\n"))
    (ws / "a.py").write_text("user edit\n")  # between turns
    await turn(session, ws, "two", lambda: (ws / "b.py").write_text("agent 2\n"))
    with pytest.raises(RewindConflictError) as info:
        await rewind(session, ws, target=1, restore="files", state=session.state_dir)
    assert info.value.conflicts == ["a.py"]
    assert (ws / "b.py").exists()  # refused: nothing changed
    assert session.timeline.last == 2

    async def keep(conflicts: list[str]) -> Decision:
        return "keep"

    outcome = await rewind(
        session, ws, target=1, restore="files", state=session.state_dir, hooks=Hooks(ask=keep)
    )
    assert outcome.kept == ["a.py"] and outcome.restored == ["b.py"]
    assert (ws / "a.py").read_text() == "user edit\n" and not (ws / "b.py").exists()

    async def cancel(conflicts: list[str]) -> Decision:
        return "cancel"

    (ws / "a.py").write_text("user again\n")
    with pytest.raises(RewindCancelledError):
        await rewind(
            session, ws, target=1, restore="files", state=session.state_dir, hooks=Hooks(ask=cancel)
        )
    assert session.timeline.last == 3


async def test_a_file_untouched_by_the_rewound_turns_is_never_restored(
    ws: Path, store: SessionStore
) -> None:
    session = store.create(cwd=ws)
    await turn(session, ws, "one", lambda: (ws / "a.py").write_text("a\n"))
    (ws / "keep.txt").write_text("user's own, later\n")
    await rewind(session, ws, target=1, restore="files", state=session.state_dir)
    assert not (ws / "a.py").exists()
    assert (ws / "keep.txt").read_text() == "user's own, later\n"


async def test_bad_targets_and_pruned_checkpoints(ws: Path, store: SessionStore) -> None:
    session = store.create(cwd=ws)
    with pytest.raises(RewindError, match="the session has no turns yet"):
        await rewind(session, ws, target=1, restore="both", state=session.state_dir)
    await turn(session, ws, "one", lambda: (ws / "a.py").write_text("a\n"))
    with pytest.raises(RewindError, match="there is no entry 2: the session has entries 1 to 1"):
        await rewind(session, ws, target=2, restore="both", state=session.state_dir)
    repo = ShadowRepo(ws, store_for(ws, session.state_dir), max_file_bytes=1 << 20)
    old = CheckpointSettings(max_age_days=0.0000001)
    dropped = prune(repo, old, force=True)
    assert sorted(dropped) == [f"refs/ink/{session.id}/1/after", f"refs/ink/{session.id}/1/before"]
    with pytest.raises(RewindError, match="were pruned"):
        await rewind(session, ws, target=1, restore="files", state=session.state_dir)
    # the conversation can still go back
    outcome = await rewind(session, ws, target=1, restore="conversation", state=session.state_dir)
    assert outcome.entry.restore == "conversation"


async def test_deleting_the_session_deletes_its_checkpoints(ws: Path, store: SessionStore) -> None:
    session = store.create(cwd=ws)
    other = store.create(cwd=ws)
    await turn(session, ws, "one", lambda: (ws / "a.py").write_text("a\n"))
    await turn(other, ws, "two", lambda: (ws / "b.py").write_text("b\n"))
    repo = ShadowRepo(ws, store_for(ws, session.state_dir), max_file_bytes=1 << 20)
    assert len(repo.refs()) == 4
    store.delete(session.id)
    # refs come oldest first by commit second: a turn across a second boundary swaps them
    assert sorted(ref for ref, _ in repo.refs()) == [
        f"refs/ink/{other.id}/1/after",
        f"refs/ink/{other.id}/1/before",
    ]


async def test_the_users_git_is_never_touched(ws: Path, store: SessionStore) -> None:
    git = ["git", "-c", "user.name=u", "-c", "user.email=u@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=ws, check=True)
    subprocess.run([*git, "add", "-A"], cwd=ws, check=True)
    subprocess.run([*git, "commit", "-qm", "c"], cwd=ws, check=True)

    def snapshot() -> dict[str, bytes]:
        return {str(p): p.read_bytes() for p in sorted((ws / ".git").rglob("*")) if p.is_file()}

    before = snapshot()
    session = store.create(cwd=ws)
    await turn(session, ws, "one", lambda: (ws / "keep.txt").write_text("changed\n"))
    await rewind(session, ws, target=1, restore="both", state=session.state_dir)
    assert (ws / "keep.txt").read_text() == "keep\n"
    assert snapshot() == before
    assert not any(".ink-" in p.name for p in ws.rglob("*"))

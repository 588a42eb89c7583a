"""Benchmark of checkpoints, run on demand: `.venv/bin/python bench/checkpoints.py`.

On a generated git repository of 10,000 text files (`--files`), measured in one run:
1. the first checkpoint of a workspace (the shadow store hashes every file once);
2. a turn that changes nothing (the snapshots before and after: a stat walk, no hashing),
   and a turn that changes 10 files, creates one and deletes one: time and disk per turn;
3. rewinding that turn (files back, the rewind's own entry recorded);
against `git stash push -u` and `git stash pop` of the same change in the user's repository
(the obvious manual way to set a change aside and bring it back). Median of `--runs` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ink_ls.checkpoints.recorder import begin_turn
from ink_ls.checkpoints.rewind import rewind
from ink_ls.checkpoints.settings import CheckpointSettings
from ink_ls.sessions.store import SessionStore

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]


def du(path: Path) -> int:
    total = 0
    for base, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(base, name)).st_blocks * 512
            except OSError:
                pass
    return total


def make_repo(root: Path, count: int) -> float:
    """The files, committed; returns the seconds the user's own `git add -A` took."""
    root.mkdir(parents=True)
    per_dir = 50
    for i in range(count):
        folder = root / f"pkg{i // per_dir:04d}"
        folder.mkdir(exist_ok=True)
        body = "".join(f"def f{i}_{n}(x):\n    return x + {n}\n\n" for n in range(40))
        (folder / f"mod{i:05d}.py").write_text(body)
    (root / ".gitignore").write_text("build/\n")
    subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
    took = timed(lambda: subprocess.run([*GIT, "add", "-A"], cwd=root, check=True))
    subprocess.run([*GIT, "commit", "-qm", "init"], cwd=root, check=True)
    return took


def change(root: Path, n: int) -> None:
    """Edit 10 files, create one, delete one (a typical agent turn)."""
    for i in range(10):
        path = root / f"pkg{i:04d}" / f"mod{i * 50:05d}.py"
        path.write_text(path.read_text() + f"# turn {n}\n")
    (root / f"new_{n}.py").write_text("print('new')\n")
    victim = root / "pkg0100" / f"mod{5000 + n:05d}.py"
    if victim.exists():
        victim.unlink()


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


async def agent_turn(
    store: SessionStore, session_id: str, ws: Path, state: Path, n: int, *, changes: bool
) -> float:
    """One turn as the front ends record it: numbered, snapshot before the first change, end."""
    session = store.open(session_id)
    started = time.perf_counter()
    turn = begin_turn(session, ws, f"turn {n}", settings=CheckpointSettings())
    assert turn is not None
    await turn.before_change()
    if changes:
        change(ws, n)
    await turn.finish()
    return time.perf_counter() - started


async def rewind_last(store: SessionStore, session_id: str, ws: Path, state: Path) -> float:
    """Rewind the session's last turn (files and conversation); returns the seconds."""
    session = store.open(session_id)
    started = time.perf_counter()
    await rewind(session, ws, target=session.timeline.last, restore="both", state=state, force=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="ink-bench-cp-", dir=args.dir))
    try:
        ws, state = base / "ws", base / "state"
        git_add = make_repo(ws, args.files)
        store = SessionStore(state / "sessions")
        session = store.create(cwd=ws)
        shadow = state / "checkpoints"

        first = asyncio.run(agent_turn(store, session.id, ws, state, 0, changes=False))
        first_disk = du(shadow)
        idle, busy, rewinds, idle_disk, busy_disk = [], [], [], [], []
        for n in range(1, args.runs + 1):
            before = du(shadow)
            idle.append(
                asyncio.run(agent_turn(store, session.id, ws, state, 100 + n, changes=False))
            )
            idle_disk.append(du(shadow) - before)
            before = du(shadow)
            busy.append(asyncio.run(agent_turn(store, session.id, ws, state, n, changes=True)))
            busy_disk.append(du(shadow) - before)
            rewinds.append(asyncio.run(rewind_last(store, session.id, ws, state)))
            assert not (ws / f"new_{n}.py").exists()

        stash_push, stash_pop, stash_disk = [], [], []
        git_dir = ws / ".git"
        for n in range(1, args.runs + 1):
            change(ws, 1000 + n)
            before = du(git_dir)
            stash_push.append(
                timed(
                    lambda: subprocess.run([*GIT, "stash", "push", "-u", "-q"], cwd=ws, check=True)
                )
            )
            stash_disk.append(du(git_dir) - before)
            stash_pop.append(
                timed(lambda: subprocess.run([*GIT, "stash", "pop", "-q"], cwd=ws, check=True))
            )
            subprocess.run([*GIT, "checkout", "-q", "--", "."], cwd=ws, check=True)
            subprocess.run([*GIT, "clean", "-qfd"], cwd=ws, check=True)

        def ms(values: list[float]) -> str:
            return f"{statistics.median(values) * 1000:8.1f} ms"

        def kib(values: list[int] | int) -> str:
            value = statistics.median(values) if isinstance(values, list) else values
            return f"{value / 1024:8.0f} KiB"

        print(
            f"workspace: {args.files:,} files, {du(ws) // 1024:,} KiB; median of {args.runs} runs"
        )
        print(f"first checkpoint (hash all)   {ms([first])}   store {kib(first_disk)}")
        print(f"  the user's git add -A of it {ms([git_add])}")
        print(f"turn, no change (2 snapshots) {ms(idle)}   disk {kib(idle_disk)}")
        print(f"turn, 12 files changed        {ms(busy)}   disk {kib(busy_disk)}")
        print(f"rewind of that turn           {ms(rewinds)}")
        print(f"git stash push -u (same)      {ms(stash_push)}   disk {kib(stash_disk)}")
        print(f"git stash pop                 {ms(stash_pop)}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()

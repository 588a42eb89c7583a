"""Checkpoints and rewind through real `ink-ls run`, `ink-ls checkpoints`, `ink-ls rewind` and
`ink-ls diff` processes, with the scripted model on loopback: turn 1 writes a file, turn 2
edits it and a command creates, deletes and chmods files; rewinding restores all of it, the
conversation continues from turn 1, the rewind is undone by rewinding to it, a `kill -9`
mid-rewind leaves every file whole, and the user's own `.git` is never touched."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import FakeModelServer, text, tool, tools

WAIT = 60.0
SESSION = "cp-session"
TURN1 = "create a.py"
TURN2 = "edit a.py and tidy the files"
A1 = "print('one')\n"
A2 = "print('two')\n"
COMMAND = "echo made > b.txt && rm c.txt && chmod +x run.sh"


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture(params=["git", "plain"])
def ws(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A workspace that is the user's own git repository (with a commit, a staged change, a
    stash and an untracked file), or a plain directory."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "c.txt").write_text("keep me\n")
    (root / "run.sh").write_text("echo run\n")
    (root / "run.sh").chmod(0o644)
    if request.param == "git":
        git = ["git", "-c", "user.name=u", "-c", "user.email=u@example.com"]
        subprocess.run([*git, "init", "-q"], cwd=root, check=True)
        (root / "notes.md").write_text("v1\n")
        subprocess.run([*git, "add", "-A"], cwd=root, check=True)
        subprocess.run([*git, "commit", "-qm", "first"], cwd=root, check=True)
        (root / "notes.md").write_text("v2\n")
        subprocess.run([*git, "stash", "-q"], cwd=root, check=True)
        (root / "notes.md").write_text("v3\n")
        subprocess.run([*git, "add", "notes.md"], cwd=root, check=True)
        (root / "untracked.txt").write_text("mine\n")
    return root


@pytest.fixture
def env(tmp_path: Path, fake: FakeModelServer) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    out = {k: v for k, v in os.environ.items() if k in keep}
    out.update(
        INK_STATE_DIR=str(tmp_path / "state"),
        INK_BASE_URL=fake.base_url,
        INK_MODEL="fake-model",
        INK_API_KEY="sk-checkpoints-test",
        PYTHONUNBUFFERED="1",
    )
    return out


def fingerprint(root: Path) -> dict[str, tuple[int, str]]:
    """Every file under `root` (mode and content hash), to compare byte for byte."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            out[str(path.relative_to(root))] = (
                path.stat().st_mode,
                hashlib.sha256(data).hexdigest(),
            )
    return out


def ink(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ink_ls", *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


def user_texts(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "user"]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def run_two_turns(env: dict[str, str], ws: Path, fake: FakeModelServer) -> None:
    fake.push(tool("write", {"path": "a.py", "content": A1}), text("wrote a.py"))
    first = ink(env, "run", "--approval", "auto", "--session", SESSION, TURN1, cwd=ws)
    assert first.returncode == 0, first.stderr
    fake.push(
        tools(
            ("edit", {"path": "a.py", "edits": [{"oldText": "one", "newText": "two"}]}),
            ("bash", {"command": COMMAND}),
        ),
        text("done"),
    )
    second = ink(env, "run", "--approval", "auto", "--session", SESSION, TURN2, cwd=ws)
    assert second.returncode == 0, second.stderr
    assert (ws / "a.py").read_text() == A2 and (ws / "b.txt").exists()


def test_rewind_restores_files_and_conversation_and_is_undoable(
    env: dict[str, str], ws: Path, fake: FakeModelServer, tmp_path: Path
) -> None:
    git_before = fingerprint(ws / ".git") if (ws / ".git").exists() else None
    run_two_turns(env, ws, fake)
    elsewhere = tmp_path  # the commands work from any directory

    listed = json.loads(ink(env, "checkpoints", SESSION, "--json", cwd=elsewhere).stdout)
    entries = listed["checkpoints"]
    assert [(e["turn"], e["kind"], e["prompt"], e["rewound"]) for e in entries] == [
        (1, "turn", TURN1, False),
        (2, "turn", TURN2, False),
    ]
    assert entries[0]["files"] == [{"path": "a.py", "status": "added", "added": 1, "removed": 0}]
    assert entries[1]["files"] == [
        {"path": "a.py", "status": "modified", "added": 1, "removed": 1},
        {"path": "b.txt", "status": "added", "added": 1, "removed": 0},
        {"path": "c.txt", "status": "deleted", "added": 0, "removed": 1},
        {"path": "run.sh", "status": "modified", "added": 0, "removed": 0},
    ]
    lines = ink(env, "checkpoints", SESSION, cwd=elsewhere).stdout.splitlines()
    assert len(lines) == 2 and "edit a.py and tidy the files" in lines[1]
    assert "a.py +1 −1" in lines[1] and "b.txt +1 −0 (new)" in lines[1]

    diff = ink(env, "diff", SESSION, "--turn", "2", cwd=elsewhere).stdout
    assert "-print('one')\n+print('two')" in diff and "\x1b[" not in diff
    assert "deleted file mode 100644" in diff and "new mode 100755" in diff

    rewound = ink(env, "rewind", SESSION, "--turn", "2", "--json", cwd=elsewhere)
    assert rewound.returncode == 0, rewound.stderr
    undo = json.loads(rewound.stdout)["checkpoint"]
    assert (undo["turn"], undo["kind"], undo["to"], undo["restore"]) == (3, "rewind", 2, "both")
    assert (ws / "a.py").read_text() == A1
    assert not (ws / "b.txt").exists()
    assert (ws / "c.txt").read_text() == "keep me\n"
    assert mode(ws / "run.sh") == 0o644

    # the conversation continues from turn 1: turn 2's prompt is gone from the model's view
    fake.push(text("continuing"))
    third = ink(env, "run", "--approval", "auto", "--session", SESSION, "what next?", cwd=ws)
    assert third.returncode == 0, third.stderr
    assert user_texts(fake.requests[-1]) == [TURN1, "what next?"]

    # rewinding to the rewind's entry brings turn 2 back (files and conversation)
    again = ink(env, "rewind", SESSION, "--turn", "3", cwd=elsewhere)
    assert again.returncode == 0, again.stderr
    assert (ws / "a.py").read_text() == A2
    assert (ws / "b.txt").read_text() == "made\n"
    assert not (ws / "c.txt").exists()
    assert mode(ws / "run.sh") == 0o755
    fake.push(text("back"))
    ink(env, "run", "--approval", "auto", "--session", SESSION, "and now?", cwd=ws)
    assert user_texts(fake.requests[-1]) == [TURN1, TURN2, "and now?"]

    final = json.loads(ink(env, "checkpoints", SESSION, "--json", cwd=elsewhere).stdout)
    marks = [(e["turn"], e["kind"], e["rewound"], e["noChanges"]) for e in final["checkpoints"]]
    assert marks == [
        (1, "turn", False, False),
        (2, "turn", False, False),
        (3, "rewind", True, False),
        (4, "turn", True, True),
        (5, "rewind", False, False),
        (6, "turn", False, True),
    ]
    if git_before is not None:
        assert fingerprint(ws / ".git") == git_before
    assert not any(".ink-" in p.name for p in ws.rglob("*"))


def test_a_conflict_is_named_and_refused_without_a_terminal(
    env: dict[str, str], ws: Path, fake: FakeModelServer, tmp_path: Path
) -> None:
    run_two_turns(env, ws, fake)
    (ws / "a.py").write_text("my own change\n")
    refused = ink(env, "rewind", SESSION, "--turn", "2", cwd=tmp_path)
    assert refused.returncode == 3
    assert "a.py" in refused.stderr and "--force" in refused.stderr
    assert (ws / "a.py").read_text() == "my own change\n" and (ws / "b.txt").exists()
    files_only = ink(env, "rewind", SESSION, "--turn", "2", "--files", "--force", cwd=tmp_path)
    assert files_only.returncode == 0, files_only.stderr
    assert (ws / "a.py").read_text() == A1 and not (ws / "b.txt").exists()
    both = ink(env, "rewind", SESSION, "--turn", "1", "--files", "--conversation", cwd=tmp_path)
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_kill_9_mid_rewind_leaves_every_file_whole(
    env: dict[str, str], fake: FakeModelServer, tmp_path: Path
) -> None:
    ws = tmp_path / "big-ws"
    ws.mkdir()
    count, size = 300, 128 * 1024
    make = (
        f"for i in $(seq 1 {count}); do head -c {size} /dev/zero | tr '\\0' 'n' > big$i.txt; done"
    )
    for i in range(1, count + 1):
        (ws / f"big{i}.txt").write_text("o" * size)
    fake.push(tool("bash", {"command": make}), text("rewrote them"))
    assert (
        ink(env, "run", "--approval", "auto", "--session", SESSION, "rewrite", cwd=ws).returncode
        == 0
    )
    session_file = tmp_path / "state" / "sessions" / f"{SESSION}.jsonl"

    async def rewind_and_kill() -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "ink_ls",
            "rewind",
            SESSION,
            "--turn",
            "1",
            env=env,
            cwd=tmp_path,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )

        def started() -> bool:  # the rewind's entry is written just before files change
            return '"type":"rewind"' in session_file.read_text()

        deadline = asyncio.get_running_loop().time() + WAIT
        while not started():
            assert proc.returncode is None, "the rewind ended before it was seen to start"
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0)
        proc.kill()
        await proc.wait()

    asyncio.run(rewind_and_kill())
    records = [json.loads(line) for line in session_file.read_text().splitlines()]
    assert not any(
        r.get("type") == "checkpoint" and r.get("entry") == 2 and r.get("stage") == "after"
        for r in records
    ), "the rewind finished before the kill: nothing was shown mid-rewind"
    states = {path.read_text()[:1] for path in (ws.glob("big*.txt"))}
    for i in range(1, count + 1):
        data = (ws / f"big{i}.txt").read_bytes()
        assert data in (b"o" * size, b"n" * size), f"big{i}.txt is neither before nor after"
    assert not any(".ink-" in p.name for p in ws.rglob("*"))
    assert states  # some state of each file, whole
    # a second rewind finishes the job: the interrupted entry is closed, the files come back
    done = ink(env, "rewind", SESSION, "--turn", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert all((ws / f"big{i}.txt").read_text() == "o" * size for i in range(1, count + 1))

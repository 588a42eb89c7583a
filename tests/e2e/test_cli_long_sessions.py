"""`ink-ls run` in a long session: the window, project instructions in the header, automatic
compaction, `--compact --session ID`, and the closing token line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.model_server import FakeModelServer
from tests.fakes.windowed import WindowedModel

WINDOW = 8_192


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for i in range(3):
        (root / f"f{i}.txt").write_text("".join(f"line {n} of {i}\n" for n in range(150)))
    (root / "AGENTS.md").write_text("Always answer in English.\n")
    return root


@pytest.fixture
def env(tmp_path: Path, fake: FakeModelServer) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    out.update(
        INK_STATE_DIR=str(tmp_path / "state"),
        INK_BASE_URL=fake.base_url,
        INK_MODEL="fake-model",
        INK_CONTEXT_WINDOW=str(WINDOW),
    )
    return out


def ink(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ink_ls", "run", "--approval", "auto", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_compact_on_demand_and_the_token_line(
    fake: FakeModelServer, env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    scripted = WindowedModel(WINDOW, reads=1)
    fake.default = scripted
    first = ink(env, "--session", "long", "check f0.txt (turn 0)", cwd=workspace)
    assert first.returncode == 0, first.stderr
    header = first.stderr.splitlines()
    assert header[0].endswith(f"· window {WINDOW:,} tokens (configured)")
    assert header[1] == "instructions: AGENTS.md"
    assert "Always answer in English." in scripted.seen[0].payload["messages"][0]["content"]
    assert "· context " in header[-1] and f"of {WINDOW:,} (" in header[-1]
    for turn in (1, 2):
        assert (
            ink(
                env, "--session", "long", f"check f{turn}.txt (turn {turn})", cwd=workspace
            ).returncode
            == 0
        )

    compacted = ink(env, "--compact", "--session", "long", cwd=workspace)
    assert compacted.returncode == 0, compacted.stderr
    line = compacted.stderr.splitlines()[-1]
    assert line.startswith("compacted session long: ") and line.endswith(" tokens")
    before, after = (
        int(n.replace(",", ""))
        for n in line.removeprefix("compacted session long: ").removesuffix(" tokens").split(" → ")
    )
    assert after < before
    records = [
        json.loads(x)
        for x in (tmp_path / "state" / "sessions" / "long.jsonl").read_text().splitlines()
    ]
    assert records[-1]["type"] == "compaction" and records[-1]["reason"] == "manual"

    seen = len(scripted.seen)
    last = ink(env, "--session", "long", "check f0.txt (turn 3)", cwd=workspace)
    assert last.returncode == 0, last.stderr
    users = [m["content"] for m in scripted.seen[seen].payload["messages"] if m["role"] == "user"]
    assert users[0].startswith("[Summary of the earlier part")
    assert not any("(turn 0)" in u for u in users)


def test_compact_needs_a_session(env: dict[str, str], workspace: Path) -> None:
    result = ink(env, "--compact", cwd=workspace)
    assert result.returncode == 2
    assert (
        result.stderr.strip() == "ink-ls run: --compact needs --session ID (the session to compact)"
    )

"""ACP end-to-end harness: `ink-ls --acp` as a real subprocess, a scripted model on loopback, a
temp workspace and `INK_STATE_DIR` in a temp dir. The scripted turn is shared by the Python and
the TypeScript SDK tests so both clients drive the same flow."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import FakeModelServer, Reply, text, tool

REPO = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "ink_ls", "--acp"]
SECRET = "sk-test-acp-secret-4242"

DISK_TEXT = "print('disk')\n"
BUFFER_TEXT = "print('buffer')\n"
"""The client's unsaved buffer of app.py: what a read through the client must see."""


def main_turn() -> list[Reply]:
    """read app.py → edit it (allowed) → write notes.txt (rejected) → run a command → answer."""
    return [
        tool("read", {"path": "app.py"}),
        tool("edit", {"path": "app.py", "edits": [{"oldText": "buffer", "newText": "edited"}]}),
        tool("write", {"path": "notes.txt", "content": "should not exist\n"}),
        tool("bash", {"command": "echo ran-$((6*7))"}),
        text("Done: app.py now prints edited."),
    ]


def cancel_turn() -> list[Reply]:
    """A command that runs for a minute unless cancelled; its pid lands in sleep.pid."""
    return [tool("bash", {"command": "echo $$ > sleep.pid; exec sleep 60"}), text("unreachable")]


def process_gone(pid: int) -> bool:
    """True when `pid` no longer runs (gone, or a zombie waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.fixture
def model() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(DISK_TEXT)
    return root


@pytest.fixture
def acp_env(tmp_path: Path, model: FakeModelServer) -> dict[str, str]:
    env: dict[str, Any] = dict(os.environ)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "INK_MODEL", "INK_API_KEY_ENV"):
        env.pop(name, None)
    env.update(
        INK_BASE_URL=model.base_url,
        INK_MODEL="fake-model",
        INK_API_KEY=SECRET,
        INK_STATE_DIR=str(tmp_path / "state"),
        PYTHONPATH=str(REPO),
    )
    return env

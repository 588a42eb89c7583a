"""`ink-ls sessions`, session ids given on the command line, `--log-file`, `--version`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.model_server import FakeModelServer, Reply, text

SECRET = "sk-e2e-sessions-secret-77"


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture
def env(tmp_path: Path, fake: FakeModelServer) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    out.update(
        INK_STATE_DIR=str(tmp_path / "state"), INK_BASE_URL=fake.base_url, INK_MODEL="fake-model"
    )
    return out


def ink(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ink_ls", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_sessions_are_listed_and_deleted(
    fake: FakeModelServer, env: dict[str, str], tmp_path: Path
) -> None:
    fake.push(text("one"), text("two"))
    first = ink(env, "run", "--json", "--session", "alpha", "first question\nmore", cwd=tmp_path)
    second = ink(env, "run", "--json", "second question", cwd=tmp_path)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    second_id = json.loads(second.stdout.splitlines()[-1])["session_id"]
    listed = ink(env, "sessions", cwd=tmp_path)
    assert listed.returncode == 0
    rows = [line.split("\t") for line in listed.stdout.splitlines()]
    assert {(r[0], r[2], r[3]) for r in rows} == {
        ("alpha", "2", "first question"),
        (second_id, "2", "second question"),
    }
    deleted = ink(env, "sessions", "delete", "alpha", cwd=tmp_path)
    assert (deleted.returncode, deleted.stderr.strip()) == (0, "deleted session alpha")
    assert [
        line.split("\t")[0] for line in ink(env, "sessions", cwd=tmp_path).stdout.splitlines()
    ] == [second_id]
    missing = ink(env, "sessions", "delete", "alpha", cwd=tmp_path)
    assert missing.returncode == 1
    assert missing.stderr.strip() == (
        f'ink-ls: no session "alpha" in {tmp_path / "state" / "sessions"}'
    )


def test_a_session_id_that_could_escape_is_refused(env: dict[str, str], tmp_path: Path) -> None:
    result = ink(env, "run", "--json", "--session", "../../etc/x", "hi", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == (
        "ink-ls run: invalid session id \"../../etc/x\": use 1-128 letters, digits, '.', '_' or "
        "'-', starting with a letter or digit"
    )


def test_log_file_gets_the_logs_and_never_the_key(
    fake: FakeModelServer, env: dict[str, str], tmp_path: Path
) -> None:
    fake.push(Reply(status=503, body=f"busy {SECRET}"), text("fine"))
    log = tmp_path / "logs" / "ink.log"
    result = ink(
        {**env, "INK_API_KEY": SECRET},
        "run",
        "--json",
        "--log-level",
        "debug",
        "--log-file",
        str(log),
        "hello",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert [json.loads(line)["type"] for line in result.stdout.splitlines()][-1] == "run_end"
    logged = log.read_text()
    assert "failed (HTTP 503); retrying in" in logged
    assert "DEBUG" in logged
    assert SECRET not in logged
    assert fake.request_headers[1]["Authorization"] == f"Bearer {SECRET}"


def test_version(env: dict[str, str], tmp_path: Path) -> None:
    from ink_ls import __version__

    result = ink(env, "--version", cwd=tmp_path)
    assert (result.returncode, result.stdout.strip()) == (0, f"ink-ls {__version__}")

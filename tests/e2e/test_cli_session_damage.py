"""Sessions survive what a hostile answer or a damaged disk does to them, through `ink-ls run`:
a message with U+2028 resumes whole; a damaged line is skipped with one warning line and the
rest of the session loads and continues; an id that names a path is refused."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.test_cli_run import env, fake, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.model_server import FakeModelServer, text

SEPARATORS = "first\u2028second\u2029third\x85fourth"


def _texts(request: dict[str, Any]) -> list[str]:
    return [str(m.get("content")) for m in request["messages"] if m["role"] != "system"]


async def test_a_message_with_line_separators_resumes_whole(
    ink: Callable[..., Any], fake: FakeModelServer, tmp_path: Path
) -> None:
    fake.push(text(f"answer {SEPARATORS}"), text("again"))
    first = await ink("--json", "--session", "sep-1", f"ask {SEPARATORS}")
    assert await first.finish() == 0, first.stderr
    second = await ink("--json", "--session", "sep-1", "and now?")
    assert await second.finish() == 0, second.stderr
    assert "damaged" not in second.stderr
    assert _texts(fake.requests[1]) == [f"ask {SEPARATORS}", f"answer {SEPARATORS}", "and now?"]


async def test_a_damaged_session_is_listed_opened_and_continued(
    ink: Callable[..., Any], fake: FakeModelServer, env: dict[str, str], tmp_path: Path
) -> None:
    fake.push(text("one"), text("two"), text("three"))
    for prompt in ("q1", "q2"):
        run = await ink("--json", "--session", "dmg", prompt)
        assert await run.finish() == 0, run.stderr
    path = Path(env["INK_STATE_DIR"]) / "sessions" / "dmg.jsonl"
    lines = path.read_bytes().split(b"\n")
    assert json.loads(lines[2])["message"]["role"] == "assistant"
    lines[2] = b'{"type":"message","message":{"role":"assistant","te\xff\xfe'  # answer one
    path.write_bytes(b"\n".join(lines))

    listing = await ink_sessions(env)
    assert listing.startswith("dmg\t")

    run = await ink("--json", "--session", "dmg", "q3")
    assert await run.finish() == 0, run.stderr
    warning = [ln for ln in run.stderr.splitlines() if "damaged" in ln]
    assert len(warning) == 1, run.stderr
    assert (
        f'session "dmg": line 3 of {path} is damaged (JSONDecodeError) and was skipped'
        in (warning[0])
    )
    assert _texts(fake.requests[2]) == ["q1", "q2", "two", "q3"]
    assert run.events[-1]["type"] == "run_end" and run.events[-1]["session_id"] == "dmg"


async def test_an_id_that_names_a_path_is_refused(
    ink: Callable[..., Any], env: dict[str, str], tmp_path: Path
) -> None:
    run = await ink("--json", "--session", "../../etc/passwd", "hi")
    assert await run.finish() == 2
    assert 'invalid session id "../../etc/passwd"' in run.stderr
    assert not (Path(env["INK_STATE_DIR"]) / "sessions").exists()


async def ink_sessions(env: dict[str, str]) -> str:
    """`ink-ls sessions` stdout."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ink_ls",
        "sessions",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()
    return out.decode()

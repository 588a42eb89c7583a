"""Sessions when the store cannot be written (a real full or read-only tmpfs as the state
directory): the user is told (a `warning` update; a message and exit 5 from `ink-ls run`), the
turn goes on, history waits in memory and is written once the store takes writes again; no
traceback on stderr. New session ids never collide, even in a burst."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e._tmpfs import fill, small_tmpfs
from tests.e2e.conftest import Starter
from tests.e2e.test_cli_run import Run, env, fake, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.model_server import FakeModelServer, text


def _roles(path: Path) -> list[str]:
    """The roles of the message records (checkpoint records number the turns in between)."""
    records = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [r["message"]["role"] for r in records if r.get("type") == "message"]


async def test_server_full_store_warns_and_saves_the_history_once_there_is_room(
    start: Starter, model: FakeModelServer, tmp_path: Path
) -> None:
    with small_tmpfs(tmp_path / "state") as state:
        (state / "sessions").mkdir()
        fill(state)
        # The checkpoint store lives on this filesystem too: its snapshot of turn 2 would race
        # the session file for the room freed below. This test is about the session file.
        client = await start(approval="auto", env={"INK_CHECKPOINTS": "0"})
        model.push(text("first answer"), text("second answer"))
        first = await client.prompt("hello")
        assert (first["stopReason"], first["text"]) == ("end_turn", "first answer")
        sid = first["sessionId"]
        warnings = [
            u["update"]["message"]
            for u in client.updates
            if u["update"]["sessionUpdate"] == "warning"
        ]
        assert warnings and warnings[0].startswith(
            f"session {sid} could not be saved: No space left on device ("
        )
        assert warnings[0].endswith(
            "its history is kept in memory and saved as soon as the store can be written again"
        )
        assert not (state / "sessions" / f"{sid}.jsonl").exists()
        (state / "filler").unlink()  # room again
        second = await client.prompt("again", sessionId=sid)
        assert second["text"] == "second answer"
        assert _roles(state / "sessions" / f"{sid}.jsonl") == [
            "user",
            "assistant",
            "user",
            "assistant",
        ]
        await client.shutdown_session()
        await client.stop()


async def test_server_read_only_store_warns_and_the_turn_goes_on(
    start: Starter, model: FakeModelServer, tmp_path: Path
) -> None:
    with small_tmpfs(tmp_path / "state") as state:
        (state / "sessions").mkdir()
        subprocess.run(["mount", "-o", "remount,ro", str(state)], check=True)
        client = await start(approval="auto")
        model.push(text("answer"))
        result = await client.prompt("hello")
        assert (result["stopReason"], result["text"]) == ("end_turn", "answer")
        (warning,) = [
            u["update"]["message"]
            for u in client.updates
            if u["update"]["sessionUpdate"] == "warning"
        ]
        assert warning.startswith(
            f"session {result['sessionId']} could not be saved: Read-only file system ("
        )
        await client.shutdown_session()
        await client.stop()


async def test_cli_full_store_says_so_and_exits_5(
    ink: Callable[..., Any],
    fake: FakeModelServer,
    tmp_path: Path,  # noqa: F811
) -> None:
    with small_tmpfs(tmp_path / "state") as state:
        (state / "sessions").mkdir()
        fill(state)
        fake.push(text("the answer"))
        run: Run = await ink("--json", "a question")
        assert await run.finish() == 5
        assert run.events[-1]["type"] == "run_end"
        assert run.events[-1]["text"] == "the answer"
        sid = run.events[-1]["session_id"]
        assert "Traceback" not in run.stderr
        assert (
            f"ink-ls run: warning: session {sid} could not be saved: No space left on "
            "device" in run.stderr
        )
        assert f"ink-ls run: session {sid} was not saved: No space left on device" in run.stderr


async def test_server_session_ids_never_collide_in_a_burst(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start(approval="auto")
    n = 300
    model.push(*[text("ok") for _ in range(n)])
    results = await asyncio.gather(*[client.prompt(f"p{i}") for i in range(n)])
    ids = {r["sessionId"] for r in results}
    assert len(ids) == n and all(r["stopReason"] == "end_turn" for r in results)

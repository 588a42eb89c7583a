"""Approval mode `readonly` refuses reads outside the workspace without asking anyone: in the
server (no prompt reaches the editor) and in `ink-ls run` (even with answers waiting on a piped
stdin)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Starter, tool_results
from tests.e2e.test_cli_run import Run, env, fake, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.model_server import FakeModelServer, text, tool

REFUSED = 'Tool "read" blocked by policy: approval mode is readonly: files outside the workspace'


async def test_server_readonly_refuses_an_outside_read_without_asking(
    start: Starter, model: FakeModelServer, tmp_path: Path
) -> None:
    outside = tmp_path / "private.txt"
    outside.write_text("top secret notes\n")
    client = await start(approval="readonly")  # any prompt would fail the test (no handler)
    model.push(tool("read", {"path": str(outside)}), text("could not read it"))
    assert (await client.prompt("read my notes"))["stopReason"] == "end_turn"
    (output,) = tool_results(model.wait_requests(2)[1])
    assert output.startswith(REFUSED)
    assert "top secret" not in output
    assert client.message_requests == []


async def test_cli_readonly_refuses_an_outside_read_even_with_yes_on_stdin(
    ink: Callable[..., Any],
    fake: FakeModelServer,
    tmp_path: Path,  # noqa: F811
) -> None:
    outside = tmp_path / "private.txt"
    outside.write_text("top secret notes\n")
    fake.push(tool("read", {"path": str(outside)}), text("could not read it"))
    run: Run = await ink("--json", "read my notes", stdin=asyncio.subprocess.PIPE)
    assert run.proc.stdin is not None
    run.proc.stdin.write(b"y\ny\ny\n")  # what a script might pipe in: never taken as consent
    out, err = await asyncio.wait_for(run.proc.communicate(), 30)
    assert run.proc.returncode == 0, err.decode()
    output = fake.wait_requests(2)[1]["messages"][-1]["content"]
    assert output.startswith(REFUSED) and "top secret" not in output
    assert b"top secret" not in out

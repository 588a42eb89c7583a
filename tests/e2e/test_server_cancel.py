"""Cancel through each of the three channels during a running `sleep`, and SIGTERM: the turn
ends `cancelled`, the process is gone, and the session takes a follow-up prompt."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.conftest import WAIT, InkClient, Starter
from tests.fakes.model_server import FakeModelServer, text, tool


def processes_running(marker: str) -> list[int]:
    """Pids whose command line contains `marker`."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().split(") ", 1)[1][0]
        except (OSError, IndexError):
            continue
        if marker in cmdline and state != "Z":
            pids.append(int(entry.name))
    return pids


async def wait_gone(marker: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while processes_running(marker):
        assert loop.time() < deadline, f"{marker} still running"
        await asyncio.sleep(0.02)


async def start_sleeping(
    client: InkClient, model: FakeModelServer, marker: str, msg_id: str | None = None
) -> tuple[asyncio.Future[dict[str, object]], str]:
    """Start a turn running `sleep <marker>`; return the prompt task and the session id."""
    model.push(tool("bash", {"command": f"sleep {marker}"}))
    task = asyncio.ensure_future(
        client.ink("ink/session/prompt", {"prompt": "sleep a minute"}, msg_id=msg_id)
    )
    await client.wait_for(
        lambda: any(u.get("phase") == "running" for u in client.tool_updates())
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not processes_running(marker):
        assert loop.time() < deadline, "sleep never started"
        await asyncio.sleep(0.01)
    return task, str(client.updates[-1]["sessionId"])


@pytest.mark.parametrize("channel", ["session_cancel", "cancel_request", "progress_cancel"])
async def test_cancel_channels_end_the_turn_cancelled(
    start: Starter, model: FakeModelServer, channel: str
) -> None:
    client = await start(approval="auto")
    marker = f"60.{os.getpid()}{abs(hash(channel)) % 1000}"
    msg_id = "prompt-to-cancel"
    task, session_id = await start_sleeping(client, model, marker, msg_id)
    if channel == "cancel_request":
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    else:
        if channel == "session_cancel":
            assert await client.ink("ink/session/cancel", {"sessionId": session_id}) is None
        else:
            (token,) = client.progress_reports
            client.window_work_done_progress_cancel(
                types.WorkDoneProgressCancelParams(token=token)
            )
    result = await asyncio.wait_for(task, WAIT)
    assert result["stopReason"] == "cancelled"
    assert result["sessionId"] == session_id
    await wait_gone(f"sleep {marker}")
    assert client.kinds()[-1] == "turn_end"
    assert client.updates[-1]["update"]["stopReason"] == "cancelled"
    (token,) = client.progress_reports
    assert client.progress_reports[token][-1].message == "cancelled"

    model.push(text("back again"))
    follow = await client.prompt("are you there?", sessionId=session_id)
    assert (follow["stopReason"], follow["text"], follow["turnId"]) == (
        "end_turn", "back again", "t2"
    )


async def test_sigterm_leaves_no_child_process(start: Starter, model: FakeModelServer) -> None:
    client = await start(approval="auto")
    marker = f"60.{os.getpid()}777"
    task, _ = await start_sleeping(client, model, marker)
    server = client._server
    assert server is not None
    os.kill(server.pid, signal.SIGTERM)
    await asyncio.wait_for(server.wait(), WAIT)
    await wait_gone(f"sleep {marker}")
    task.cancel()

"""Cancel through each of the three channels during a running `sleep`, and SIGTERM: the turn
ends `cancelled`, the process is gone, and the session takes a follow-up prompt."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
from lsprotocol import types

from ink_ls.protocol import methods
from tests.e2e.conftest import (
    WAIT,
    Starter,
    processes_running,
    start_sleeping,
    wait_gone,
)
from tests.fakes.model_server import FakeModelServer, text, tool


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
            assert await client.ink(methods.SESSION_CANCEL, {"sessionId": session_id}) is None
        else:
            (token,) = client.progress_reports
            client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(task, WAIT)
    assert result["stopReason"] == "cancelled"
    assert result["sessionId"] == session_id
    await wait_gone(f"sleep {marker}")
    assert client.kinds()[-1] == "turn_end"
    assert client.updates[-1]["update"]["stopReason"] == "cancelled"
    # the stopped call is told apart from a failed one: settled and delivered `cancelled`
    ends = [u for u in client.tool_updates() if u.get("phase") in ("settled", "delivered")]
    assert [(u["phase"], u["status"]) for u in ends] == [
        ("settled", "cancelled"),
        ("delivered", "cancelled"),
    ]
    (token,) = client.progress_reports
    assert client.progress_reports[token][-1].message == "cancelled"

    model.push(text("back again"))
    follow = await client.prompt("are you there?", sessionId=session_id)
    assert (follow["stopReason"], follow["text"], follow["turnId"]) == (
        "end_turn",
        "back again",
        "t2",
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


async def test_kill_9_of_the_server_still_ends_its_commands(
    start: Starter, model: FakeModelServer
) -> None:
    """No handler runs on SIGKILL: the watchdog kills the command's whole group (a child of
    the command too) once the server is gone."""
    client = await start(approval="auto")
    marker = f"60.{os.getpid()}999"
    model.push(tool("bash", {"command": f"sleep {marker} & sleep {marker}1; wait"}))
    task = asyncio.ensure_future(client.prompt("sleep twice"))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while len(processes_running(f"sleep {marker}")) < 2:
        assert loop.time() < deadline, "the sleeps never started"
        await asyncio.sleep(0.01)
    server = client._server
    assert server is not None
    os.kill(server.pid, signal.SIGKILL)
    await asyncio.wait_for(server.wait(), WAIT)
    await wait_gone(f"sleep {marker}")
    task.cancel()

"""Server lifecycle and settings: shutdown and stdin EOF during a turn, settings changed at
run time, reads outside the workspace, the prompt's selection in each position encoding, and
the API key kept out of every log line."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from lsprotocol import types

from tests.e2e.conftest import (
    SECRET,
    WAIT,
    Starter,
    answer,
    start_sleeping,
    tool_results,
    wait_gone,
)
from tests.fakes.model_server import FakeModelServer, text, tool


async def test_shutdown_answers_the_running_turn_cancelled(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start(approval="auto")
    marker = f"60.{os.getpid()}555"
    task, _ = await start_sleeping(client, model, marker)
    await asyncio.wait_for(client.shutdown_async(None), WAIT)
    assert task.done()  # answered before the shutdown response
    assert task.result()["stopReason"] == "cancelled"
    await wait_gone(f"sleep {marker}")
    client.exit(None)
    assert client._server is not None
    assert await asyncio.wait_for(client._server.wait(), WAIT) == 0


async def test_stdin_eof_kills_the_running_command(start: Starter, model: FakeModelServer) -> None:
    client = await start(approval="auto")
    marker = f"60.{os.getpid()}556"
    task, _ = await start_sleeping(client, model, marker)
    server = client._server
    assert server is not None and server.stdin is not None
    server.stdin.close()
    await asyncio.wait_for(server.wait(), WAIT)
    await wait_gone(f"sleep {marker}")
    task.cancel()


async def test_settings_change_at_run_time(start: Starter, model: FakeModelServer) -> None:
    model.push(tool("bash", {"command": "touch made-it"}), text("ok"))
    client = await start()
    client.workspace_did_change_configuration(  # now read-only: refused without asking
        types.DidChangeConfigurationParams(settings={"ink": {"approval": "readonly"}})
    )
    await client.prompt("run it")
    (output,) = tool_results(model.wait_requests(2)[1])
    assert output == (
        'Tool "bash" blocked by policy: approval mode is readonly: commands are not run'
    )
    assert client.message_requests == []
    assert not (client.workspace / "made-it").exists()


async def test_reading_outside_the_workspace_asks(start: Starter, model: FakeModelServer) -> None:
    client = await start()
    secret_file = client.workspace.parent / "outside.txt"
    secret_file.write_text("outside text", encoding="utf-8")
    (client.workspace / "link").symlink_to(secret_file)
    model.push(tool("read", {"path": "link"}), text("ok"))
    client.on_message_request = answer("reject_once")
    await client.prompt("read the link")
    (asked,) = client.message_requests
    assert asked["message"].startswith("Ink wants to access files outside the workspace:\n")
    assert str(secret_file) in asked["message"]
    (output,) = tool_results(model.wait_requests(2)[1])
    assert output == 'Tool "read" blocked by user: the user rejected this call'


async def test_selection_context_in_the_negotiated_encoding(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start()
    text_in_buffer = "x = '😀'; y = 1\nz = 2\n"
    uri = client.open("a.py", text_in_buffer)
    # select `y = 1`: after the emoji, so utf-8 and utf-16 columns differ
    start_col = len("x = '😀'; ".encode("utf-8" if client.preset == "neovim" else "utf-16-le"))
    if client.preset != "neovim":
        start_col //= 2
    rng = {
        "start": {"line": 0, "character": start_col},
        "end": {"line": 0, "character": start_col + 5},
    }
    model.push(text("ok"))
    await client.prompt("explain", textDocument={"uri": uri}, range=rng)
    user = model.wait_requests(1)[0]["messages"][-1]["content"]
    assert user == (
        "explain\n\nContext: the user is looking at a.py (lines 1-1), selected text:\n"
        "```\ny = 1\n```"
    )


async def test_api_key_never_reaches_logs_or_the_client(
    start: Starter, model: FakeModelServer, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    model.push(tool("bash", {"command": "env"}), text("ok"))
    client = await start(approval="auto", args=("--log-file", str(log), "--log-level", "debug"))
    await client.prompt("show env")
    await client.shutdown_session()
    logged = log.read_text(encoding="utf-8")
    assert "ink_ls" in logged  # debug logging really ran
    assert SECRET not in logged
    assert all(SECRET not in str(u) for u in client.updates)
    assert SECRET not in tool_results(model.wait_requests(2)[1])[0]


async def test_exit_without_shutdown_kills_the_running_command(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start(approval="auto")
    marker = f"60.{os.getpid()}557"
    task, _ = await start_sleeping(client, model, marker)
    client.exit(None)
    assert client._server is not None
    assert await asyncio.wait_for(client._server.wait(), WAIT) == 1  # exit before shutdown
    await wait_gone(f"sleep {marker}")
    task.cancel()

"""The wire contract: malformed JSON and invalid params leave the server serving, refusals carry
app codes and no traceback, capabilities announce the methods, and protocol.md documents every
method the server registers."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol.types import TEXT_DOCUMENT_HOVER
from pygls.exceptions import JsonRpcException

from ink_ls.protocol import methods
from ink_ls.protocol.errors import InkErrorCode
from ink_ls.server import build_server, registered_methods
from tests.e2e.conftest import REPO, WAIT, Starter, answer, server_env
from tests.fakes.model_server import FakeModelServer, Reply, text, tool


async def rpc_error(coro: Any) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as info:
        await asyncio.wait_for(coro, WAIT)
    error = info.value
    assert "traceback" not in json.dumps(error.data or {})
    return error


async def test_malformed_json_and_invalid_params_leave_the_server_serving(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start()
    writer = client.protocol.writer
    assert writer is not None
    body = b'{"jsonrpc": "2.0", "id": 99, "method": "ink/tools", "params": {'
    writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    error = await rpc_error(client.ink(methods.SESSION_PROMPT, {"prompt": 5}))
    assert (error.code, error.message) == (
        -32602,
        "invalid params: /prompt: Input should be a valid string",
    )
    assert error.data == {"errors": [{"loc": "/prompt", "msg": "Input should be a valid string"}]}

    error = await rpc_error(client.ink(methods.SESSION_PROMPT, {"sessionId": "x"}))
    assert (error.code, error.message) == (-32602, "invalid params: /prompt: Field required")
    assert error.data["errors"] == [{"loc": "/prompt", "msg": "Field required"}]

    not_an_object: Any = ["not", "an", "object"]
    error = await rpc_error(client.ink(methods.SESSION_CLOSE, not_an_object))
    assert (error.code, error.message, error.data) == (
        -32602,
        "invalid params: params must be an object",
        {"errors": [{"loc": "(root)", "msg": "Input should be an object"}]},
    )

    error = await rpc_error(
        client.ink(methods.SESSION_PROMPT, {"prompt": "hi", "sessionId": "nope"})
    )
    assert (error.code, error.message) == (
        InkErrorCode.SESSION_NOT_FOUND,
        "session not found: nope",
    )

    # an LSP request whose params do not fit its type is answered, not left hanging
    client.protocol.extra_raw = {TEXT_DOCUMENT_HOVER}
    error = await rpc_error(client.ink(TEXT_DOCUMENT_HOVER, {"textDocument": 5}))
    assert (error.code, error.message) == (-32602, "Invalid Params: params of textDocument/hover")

    tools = await client.ink(methods.TOOLS, {})
    names = [t["name"] for t in tools["tools"]]
    assert sorted(names) == [
        "bash",
        "edit",
        "find",
        "grep",
        "ls",
        "read",
        "task",
        "todo_write",
        "write",
    ]
    read = tools["tools"][names.index("read")]
    assert read["concurrencySafe"] is True
    assert read["parameters"]["required"] == ["path"]

    model.push(text("still here"))
    result = await client.prompt("hello")
    assert result["text"] == "still here"


async def test_busy_session_is_refused_and_list_and_close_work(
    start: Starter, model: FakeModelServer
) -> None:
    release = threading.Event()  # the reply is held back until the test has poked the session
    model.push(Reply(text="slow answer", gate=release))
    client = await start()
    first = asyncio.ensure_future(client.prompt("first question\nsecond line"))
    await client.wait_for(lambda: bool(client.updates))
    session_id = client.updates[0]["sessionId"]
    listed = await client.ink(methods.SESSION_LIST, {})
    assert [(s["sessionId"], s["title"], s["running"]) for s in listed["sessions"]] == [
        (session_id, "first question", True)
    ]
    error = await rpc_error(client.prompt("again", sessionId=session_id))
    assert (error.code, error.message) == (
        InkErrorCode.SESSION_BUSY,
        f"session busy: {session_id} is already running a turn; cancel it or wait",
    )
    release.set()
    assert (await asyncio.wait_for(first, WAIT))["text"] == "slow answer"

    listed = await client.ink(methods.SESSION_LIST, {})
    assert listed["sessions"][0]["running"] is False
    assert await client.ink(methods.SESSION_CLOSE, {"sessionId": session_id}) is None
    listed = await client.ink(methods.SESSION_LIST, {})  # closed, still stored
    assert [s["sessionId"] for s in listed["sessions"]] == [session_id]
    await client.ink(methods.SESSION_CLOSE, {"sessionId": session_id, "delete": True})
    assert (await client.ink(methods.SESSION_LIST, {}))["sessions"] == []


async def test_model_endpoint_failure_is_an_error_stop(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(*[Reply(status=400, body='{"error": {"message": "bad model"}}')] * 4)
    client = await start()
    result = await client.prompt("hello")
    assert result["stopReason"] == "error"
    assert result["error"] == (
        f"the model endpoint at {model.base_url} answered HTTP 400: bad model"
    )
    assert client.kinds()[-2:] == ["error", "turn_end"]


async def test_initialize_announces_methods_and_warns_once_on_bad_settings(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start(
        ink={"model": {"baseUrl": model.base_url, "maxTokens": -1}, "approval": "sometimes"}
    )
    # the settings are validated once the answer is out (on `initialized`): any later answer
    # comes after the warning
    await asyncio.wait_for(client.ink(methods.SESSION_LIST, {}), WAIT)
    (warning,) = client.messages
    assert warning.type == 2
    assert warning.message == (
        "ink: invalid settings ignored (model.maxTokens: Input should be greater than 0; "
        "approval: must be one of 'ask', 'auto', 'readonly', 'plan'); using defaults"
    )
    assert client.init_result is not None
    caps = client.init_result.capabilities
    assert caps.experimental == {
        "ink": {
            "version": "0.1.0",
            "methods": [
                methods.SESSION_PROMPT,
                methods.SESSION_CANCEL,
                methods.SESSION_LIST,
                methods.SESSION_CLOSE,
                methods.SESSION_COMPACT,
                methods.SESSION_LOAD,
                methods.SESSION_CHECKPOINTS,
                methods.SESSION_REWIND,
                methods.SESSION_CHANGES,
                methods.TOOLS,
                methods.COMMANDS_LIST,
                methods.MCP_STATUS,
            ],
            "notifications": [methods.SESSION_UPDATE],
        }
    }
    expected = "utf-8" if client.preset == "neovim" else "utf-16"
    assert caps.position_encoding == expected
    assert client.init_result.server_info is not None
    assert client.init_result.server_info.name == "ink-ls"
    # the bad keys fell back: the default approval mode (ask) still asks before a command
    model.push(tool("bash", {"command": "true"}), text("ok"))
    client.on_message_request = answer(None)
    await client.prompt("run")
    assert len(client.message_requests) == 1


def test_every_registered_method_is_in_protocol_md() -> None:
    text_md = (REPO / "protocol.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-zA-Z$][\w$/]*)`", text_md))
    server = build_server()
    missing = sorted(
        m
        for m in registered_methods(server)
        | set(methods.SERVER_REQUESTS)
        | set(methods.SERVER_NOTIFICATIONS)
        if m not in documented and not m.startswith("notebookDocument/")
    )
    assert missing == []


async def test_sessions_persist_across_server_restarts(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(text("first answer"))
    client = await start()
    first = await client.prompt("remember the number 42")
    await client.shutdown_session()

    model.push(text("it was 42"))
    again = await start()
    listed = await again.ink(methods.SESSION_LIST, {})
    assert [(s["sessionId"], s["title"]) for s in listed["sessions"]] == [
        (first["sessionId"], "remember the number 42")
    ]
    result = await again.prompt("what was the number?", sessionId=first["sessionId"])
    assert (result["text"], result["turnId"]) == ("it was 42", "t2")
    history = model.wait_requests(2)[1]["messages"]
    contents = [m.get("content") for m in history if m["role"] in ("user", "assistant")]
    assert contents[-3:] == ["remember the number 42", "first answer", "what was the number?"]

    assert (
        await again.ink(methods.SESSION_CLOSE, {"sessionId": first["sessionId"], "delete": True})
        is None
    )
    assert (await again.ink(methods.SESSION_LIST, {}))["sessions"] == []


async def test_tcp_transport_serves_one_client(workspace: Path, tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ink_ls",
        "--tcp",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        env=server_env(tmp_path / "state"),
        cwd=str(workspace),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while True:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                assert loop.time() < deadline, "the TCP server never listened"
                await asyncio.sleep(0.05)
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}},
            }
        ).encode()
        writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        length = 0
        while (line := await asyncio.wait_for(reader.readline(), WAIT)) != b"\r\n":
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        reply = json.loads(await reader.readexactly(length))
        assert reply["id"] == 1
        assert reply["result"]["capabilities"]["experimental"]["ink"]["version"] == "0.1.0"
        writer.close()
    finally:
        proc.kill()
        await proc.wait()

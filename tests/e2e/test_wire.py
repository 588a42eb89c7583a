"""The wire, byte for byte: raw frames written to a real `python -m ink_ls --stdio` process.

Every malformed frame or message is answered with a plain JSON-RPC error (never Python
exception text) and the server keeps serving the next message; a second `initialize` is
refused while a turn keeps running; requests after `shutdown` get the errors protocol.md
promises.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import server_env
from tests.fakes.model_server import FakeModelServer, text, tool

WAIT = 20.0


def frame(message: Any) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(msg_id: int, method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params or {}}


class RawServer:
    """The server process with framed bytes in and parsed messages out."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.seen: list[dict[str, Any]] = []

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    async def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        length = None
        while True:
            line = await self.proc.stdout.readline()
            assert line, "the server closed its output"
            if line == b"\r\n":
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        assert length is not None
        message: dict[str, Any] = json.loads(await self.proc.stdout.readexactly(length))
        self.seen.append(message)
        return message

    async def answer(self, msg_id: Any) -> dict[str, Any]:
        """The next response with this id (notifications and other answers are kept in `seen`)."""

        async def scan() -> dict[str, Any]:
            while True:
                message = await self._read()
                if "method" not in message and message.get("id") == msg_id:
                    return message

        return await asyncio.wait_for(scan(), WAIT)

    async def initialize(self, workspace: Path, model: FakeModelServer) -> None:
        self.send(
            frame(
                request(
                    1,
                    "initialize",
                    {
                        "processId": None,
                        "rootUri": workspace.as_uri(),
                        "capabilities": {},
                        "initializationOptions": {
                            "ink": {
                                "model": {
                                    "baseUrl": model.base_url,
                                    "model": "fake",
                                    "apiKey": "sk-x",
                                },
                                "approval": "auto",
                            }
                        },
                    },
                )
            )
        )
        assert "result" in await self.answer(1)
        self.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

    async def still_serving(self, msg_id: int) -> None:
        self.send(frame(request(msg_id, "ink/session/list")))
        reply = await self.answer(msg_id)
        assert reply.get("result") == {"sessions": []}, reply


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RawServer]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ink_ls",
        "--stdio",
        cwd=str(workspace),
        env=server_env(tmp_path / "state"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    yield RawServer(proc)
    if proc.returncode is None:
        proc.kill()
        await proc.wait()


@pytest.fixture
def model() -> Any:
    with FakeModelServer() as srv:
        yield srv


def assert_plain(reply: dict[str, Any], code: int, message: str) -> None:
    error = reply["error"]
    assert (error["code"], error["message"]) == (code, message)
    assert "data" not in error  # no traceback, no exception text


BODY = json.dumps(request(7, "ink/session/list")).encode()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        (
            "Content-Length too small",
            b"Content-Length: %d\r\n\r\n" % (len(BODY) - 9) + BODY,
            "parse error: the message is not valid JSON (line 1, column 59)",
        ),
        (
            "Content-Length missing",
            b"Content-Type: application/json\r\n\r\n" + BODY,
            "parse error: the message has no Content-Length header",
        ),
        (
            "Content-Length not a number",
            b"Content-Length: lots\r\n\r\n" + BODY,
            "parse error: the Content-Length header is not a number",
        ),
        (
            "a body without any header",
            BODY,
            "parse error: bytes outside a message were skipped (no Content-Length header before "
            "them)",
        ),
        (
            "Content-Length too large",
            b"Content-Length: %d\r\n\r\n" % (len(BODY) + 500) + BODY,
            f"parse error: incomplete message: Content-Length is {len(BODY) + 500} but only "
            f"{len(BODY) + len(frame(request(2, 'ink/session/list')))} bytes arrived",
        ),
    ],
)
async def test_a_bad_frame_is_answered_and_the_next_message_served(
    server: RawServer,
    model: FakeModelServer,
    tmp_path: Path,
    name: str,
    data: bytes,
    message: str,
) -> None:
    await server.initialize(tmp_path / "ws", model)
    server.send(data + frame(request(2, "ink/session/list")))
    reply = await server.answer(None)
    assert_plain(reply, -32700, message)
    assert (await server.answer(2))["result"] == {"sessions": []}  # the very next message
    await server.still_serving(3)


@pytest.mark.parametrize(
    ("body", "code", "message", "msg_id"),
    [
        (
            b'{"jsonrpc": "2.0", "id": 5, "method": "ink/session/list", "params": {"x": "\xff"}}',
            -32700,
            "parse error: the message is not valid UTF-8",
            None,
        ),
        (b"[" * 5000 + b"]" * 5000, -32700, "parse error: nested deeper than 128 levels", None),
        (
            b'{"jsonrpc": "2.0", "id": 5, "method": "x", "params": '
            + b"[" * 200
            + b"]" * 200
            + b"}",
            -32700,
            "parse error: nested deeper than 128 levels",
            None,
        ),
        (
            json.dumps([request(5, "ink/session/list")]).encode(),
            -32600,
            "invalid request: batches (JSON arrays) are not supported; send one message per frame",
            None,
        ),
        (b'"hello"', -32600, "invalid request: a message must be a JSON object", None),
        (b"42", -32600, "invalid request: a message must be a JSON object", None),
        (
            json.dumps({"id": 5, "method": "ink/session/list"}).encode(),
            -32600,
            'invalid request: "jsonrpc" must be "2.0"',
            5,
        ),
        (
            json.dumps({"jsonrpc": "1.0", "id": 5, "method": "ink/session/list"}).encode(),
            -32600,
            'invalid request: "jsonrpc" must be "2.0"',
            5,
        ),
        (
            json.dumps({"jsonrpc": "2.0", "id": [5], "method": "ink/session/list"}).encode(),
            -32600,
            "invalid request: id must be an integer or a string",
            None,
        ),
        (
            json.dumps({"jsonrpc": "2.0", "id": True, "method": "ink/session/list"}).encode(),
            -32600,
            "invalid request: id must be an integer or a string",
            None,
        ),
        (
            json.dumps({"jsonrpc": "2.0", "id": 5, "method": 17}).encode(),
            -32600,
            "invalid request: method must be a string",
            5,
        ),
        (
            json.dumps(request(5, "initialized")).encode(),
            -32600,
            "invalid request: initialized is a notification; send it without an id",
            5,
        ),
        (
            json.dumps(
                request(5, "textDocument/didClose", {"textDocument": {"uri": "file:///x"}})
            ).encode(),
            -32600,
            "invalid request: textDocument/didClose is a notification; send it without an id",
            5,
        ),
    ],
)
async def test_a_malformed_message_gets_a_plain_error_and_serving_goes_on(
    server: RawServer,
    model: FakeModelServer,
    tmp_path: Path,
    body: bytes,
    code: int,
    message: str,
    msg_id: Any,
) -> None:
    await server.initialize(tmp_path / "ws", model)
    server.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert_plain(await server.answer(msg_id), code, message)
    await server.still_serving(2)


async def test_a_second_initialize_is_refused_and_the_running_turn_goes_on(
    server: RawServer, model: FakeModelServer, tmp_path: Path
) -> None:
    await server.initialize(tmp_path / "ws", model)
    started = tmp_path / "started"
    model.push(tool("bash", {"command": f"touch {started}; sleep 1"}), text("all done"))
    server.send(frame(request(2, "ink/session/prompt", {"prompt": "work"})))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not started.exists():
        assert loop.time() < deadline, "the command never started"
        await asyncio.sleep(0.01)
    server.send(frame(request(3, "initialize", {"processId": None, "capabilities": {}})))
    assert_plain(
        await server.answer(3),
        -32600,
        "invalid request: the server is already initialized; initialize may be sent only once",
    )
    result = (await server.answer(2))["result"]
    assert (result["stopReason"], result["text"]) == ("end_turn", "all done")


async def test_requests_after_shutdown_get_the_promised_errors(
    server: RawServer, model: FakeModelServer, tmp_path: Path
) -> None:
    await server.initialize(tmp_path / "ws", model)
    server.send(frame(request(2, "shutdown", None)))
    assert (await server.answer(2))["result"] is None
    server.send(frame(request(3, "ink/session/prompt", {"prompt": "more"})))
    assert_plain(
        await server.answer(3),
        -32004,
        "the server is shut down: ink/session/prompt is refused; only exit is accepted",
    )
    server.send(
        frame(
            request(
                4,
                "textDocument/hover",
                {"textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": 0}},
            )
        )
    )
    assert_plain(
        await server.answer(4),
        -32600,
        "the server is shut down: textDocument/hover is refused; only exit is accepted",
    )
    server.send(frame({"jsonrpc": "2.0", "method": "exit"}))
    assert await asyncio.wait_for(server.proc.wait(), WAIT) == 0

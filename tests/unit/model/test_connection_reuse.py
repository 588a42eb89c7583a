"""A finished reply's connection serves the next request: its body is read to its end after
the reply has gone to the caller (a connection closed mid-body cannot be reused, so every
request paid a new one). Over real loopback HTTP/1.1 with keep-alive."""

from __future__ import annotations

import asyncio
import json

from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import user_text
from ink_ls.core.signal import NEVER
from ink_ls.model.base import ModelRequest, ReplyDone
from ink_ls.model.providers import make_client


def _event(delta: dict[str, object], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return b"data: " + json.dumps({"id": "c", "choices": [choice]}).encode() + b"\n\n"


class KeepAlive(asyncio.Protocol):
    """Answers every POST with a short streamed reply, chunked, keeping the connection."""

    connections = 0

    def __init__(self) -> None:
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        KeepAlive.connections += 1

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = self.buffer[:end].lower()
            at = head.find(b"content-length:")
            length = int(head[at + 15 :].split(b"\r\n")[0]) if at >= 0 else 0
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length :]
            self._reply()

    def _reply(self) -> None:
        assert self.transport is not None
        body = _event({"role": "assistant", "content": "ok"}) + _event({}, "stop")
        body += b"data: [DONE]\n\n"
        head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        head += b"transfer-encoding: chunked\r\n\r\n"
        # the reply, then the body's end in a write of its own (as a real server may)
        self.transport.write(head + b"%x\r\n" % len(body) + body + b"\r\n")
        asyncio.get_running_loop().call_soon(self.transport.write, b"0\r\n\r\n")


async def test_one_connection_serves_a_session_of_requests() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(KeepAlive, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = make_client(ModelSettings(base_url=f"http://127.0.0.1:{port}/v1", model="m"))
    try:
        for _ in range(8):
            items = [
                item async for item in client.stream(ModelRequest("", [user_text("hi")], []), NEVER)
            ]
            done = items[-1]
            assert isinstance(done, ReplyDone) and done.message.text == "ok"
        await client.aclose()  # waits for the last body's end
        assert KeepAlive.connections == 1
    finally:
        server.close()
        await server.wait_closed()

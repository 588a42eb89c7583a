"""A slow model endpoint for `bench/burst.py`: every chat request is answered after N seconds.

With `--dispatch` (for `bench/dispatch.py`) it answers at once instead: a request whose last
message is not a tool result gets a `read` call of README.md, the others "ok"; it notes when
each such request arrived and when its reply was written (`time.perf_counter`, the monotonic
clock every process shares) and a GET of `/times` returns the last pair.

Two servers of the same answer: a lean asyncio HTTP/1.1 one (keep-alive, little CPU of its
own, so the bench measures the client) and an ASGI app under hypercorn for HTTP/2: cleartext
(prior knowledge), or over TLS with `--tls CERT_AND_KEY_PEM` (ALPN, as a real endpoint).
`GET /count` answers how many chat requests were answered, by HTTP version. Run as a process
of its own (`python bench/burst_model.py --port P`), so its CPU is not the client's; it prints
`ready` once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "bench"}
    body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
    return b"data: " + json.dumps(body).encode() + b"\n\n"


class SlowModel:
    """Answers each POST with a short streamed text after `delay` seconds."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.versions: dict[str, int] = {}
        """Chat requests answered, by HTTP version ("1.1", "2")."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        while (await receive()).get("more_body"):
            pass
        if scope["method"] == "GET":
            answered = sum(self.versions.values())
            body = json.dumps({"answered": answered, "versions": self.versions}).encode()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": body})
            return
        await asyncio.sleep(self.delay)
        version = scope["http_version"]
        self.versions[version] = self.versions.get(version, 0) + 1
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        body = _chunk({"role": "assistant", "content": "done"}) + _chunk({}, "stop")
        await send({"type": "http.response.body", "body": body + b"data: [DONE]\n\n"})


def _call_chunks() -> bytes:
    call = {"index": 0, "id": "call_1", "type": "function"}
    call["function"] = {"name": "read", "arguments": json.dumps({"path": "README.md"})}
    return _chunk({"role": "assistant", "tool_calls": [call]}) + _chunk({}, "tool_calls")


class _Http1(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection: each POST is answered after `delay` seconds (or at
    once with a scripted read call, in dispatch mode)."""

    answered = 0
    """Chat requests answered by every connection (a GET reports it)."""
    times = (0.0, 0.0)
    """Dispatch mode: (arrived, replied) of the last request answered with a call."""

    def __init__(self, delay: float, dispatch: bool = False) -> None:
        self.delay = delay
        self.dispatch = dispatch
        self.first = 0.0
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if not self.buffer:
            self.first = time.perf_counter()
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = self.buffer[:end].lower()
            at = head.find(b"content-length:")
            length = int(head[at + 15 :].split(b"\r\n")[0]) if at >= 0 else 0
            if len(self.buffer) < end + 4 + length:
                return
            body = self.buffer[end + 4 : end + 4 + length]
            self.buffer = self.buffer[end + 4 + length :]
            if head.startswith(b"get"):
                self._count(head)
            elif self.dispatch:
                self._dispatch(body)
            else:
                asyncio.get_running_loop().call_later(self.delay, self._answer)

    def _count(self, head: bytes) -> None:
        assert self.transport is not None
        answer = {"answered": _Http1.answered, "times": _Http1.times}
        if b"/models" in head.split(b"\r\n")[0]:
            answer = {"object": "list", "data": [{"id": "bench"}]}
        body = json.dumps(answer).encode()
        head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        self.transport.write(head + b"content-length: %d\r\n\r\n" % len(body) + body)

    def _answer(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        _Http1.answered += 1
        body = _chunk({"role": "assistant", "content": "done"}) + _chunk({}, "stop")
        self._reply(body)

    def _reply(self, body: bytes) -> None:
        assert self.transport is not None
        body += b"data: [DONE]\n\n"
        head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        self.transport.write(head + b"content-length: %d\r\n\r\n" % len(body) + body)

    def _dispatch(self, raw: bytes) -> None:
        messages = json.loads(raw).get("messages") or [{}]
        _Http1.answered += 1
        if messages[-1].get("role") == "tool":
            self._reply(_chunk({"role": "assistant", "content": "ok"}) + _chunk({}, "stop"))
            return
        arrived, body = self.first, _call_chunks()
        _Http1.times = (arrived, time.perf_counter())
        self._reply(body)


async def serve_http1(delay: float, port: int, dispatch: bool = False) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: _Http1(delay, dispatch), "127.0.0.1", port, backlog=4096, reuse_address=True
    )
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


async def serve(delay: float, port: int, tls: str | None = None) -> None:
    from hypercorn.asyncio import serve as hyper_serve
    from hypercorn.config import Config

    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.backlog = 4096  # a burst of new connections is not dropped by a short listen queue
    config.h2_max_concurrent_streams = 4096
    config.keep_alive_timeout = 60
    if tls is not None:
        config.certfile = config.keyfile = tls
    config.loglevel = "WARNING"
    config.accesslog = None
    config.errorlog = None
    shutdown = asyncio.Event()

    async def announce() -> None:
        await asyncio.sleep(0.2)
        print("ready", flush=True)

    asyncio.ensure_future(announce())
    await hyper_serve(SlowModel(delay), config, shutdown_trigger=shutdown.wait)  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--h2", action="store_true", help="hypercorn (HTTP/1.1 and h2c)")
    parser.add_argument("--tls", help="hypercorn over TLS with this PEM (key and certificate)")
    parser.add_argument("--dispatch", action="store_true", help="a read call at once")
    opts = parser.parse_args()
    try:
        if opts.h2 or opts.tls:
            asyncio.run(serve(opts.delay, opts.port, opts.tls))
        else:
            asyncio.run(serve_http1(opts.delay, opts.port, opts.dispatch))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()

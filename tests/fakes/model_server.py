"""A loopback HTTP server that speaks the OpenAI Chat Completions streaming API from a script.

Tests push replies (text, tool calls, errors, broken streams, or a real server's response
replayed byte for byte with `Reply(raw=…)`); every request body is recorded. Further GET and
POST routes (`get_routes`, `post_routes`) let it play a server's native endpoints too.
Stdlib only (ThreadingHTTPServer on 127.0.0.1:0) so any test layer can use it,
and `python -m tests.fakes.model_server SCRIPT.json` runs it standalone for editor tests.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted response to one POST /chat/completions."""

    text: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    """(name, arguments) — arguments a dict/list/str; a str is sent verbatim as the JSON text."""
    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    """For non-200 replies: the body sent as is."""
    chunk_size: int = 4
    """Text and argument strings are split into pieces of this many characters."""
    delay: float = 0.0
    """Seconds to sleep between SSE events."""
    drop_after: int | None = None
    """Close the connection after this many SSE events (a mid-stream drop)."""
    no_done: bool = False
    garbage: str | None = None
    """A raw line sent after the first event (e.g. 'data: {not json')."""
    hang: bool = False
    """After the first event, send nothing until the client goes away."""
    gate: threading.Event | None = None
    """After the first piece of text (the first event when there is no text), send nothing
    more until the test sets it: the test releases the rest of the reply once it has seen what
    must come first (never a timing guess). Every gate is released when the server stops."""
    call_ids: list[str] | None = None
    hold: threading.Event | None = None
    """Hold the rest of the stream until this event is set (or the client goes away)."""
    hold_after: int = 0
    """Where the hold is: once call number `hold_after` has begun (so the calls before it
    are complete in the stream), or after the finish chunk when it equals the call count."""
    raw: bytes | None = None
    """A whole response body sent byte for byte (a real server's stream, replayed), in
    `raw_piece`-sized writes, then the connection closes."""
    raw_piece: int = 61
    raw_hold_at: int | None = None
    """With `raw` and `hold`: the byte offset where the stream holds (keep-alive comments)
    until `hold` is set or the client goes away (a cancel mid-stream)."""
    content_type: str = "text/event-stream"


def text(t: str, **kw: Any) -> Reply:
    return Reply(text=t, **kw)


def tool(name: str, args: Any, **kw: Any) -> Reply:
    return Reply(tool_calls=[(name, args)], **kw)


def tools(*calls: tuple[str, Any], **kw: Any) -> Reply:
    return Reply(tool_calls=list(calls), **kw)


Responder = Callable[[dict[str, Any]], Reply]

_HOLD = "hold"
"""Marks the place of a reply's hold among its events."""


class _Server(ThreadingHTTPServer):
    request_queue_size = 256
    """A burst of sessions connects at once: the default listen queue (5) would drop SYNs."""


class FakeModelServer:
    """Start with `with FakeModelServer() as srv:`; `srv.base_url` ends in /v1."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        """The path of each scripted request (`/v1/chat/completions`, `/v1/messages`, …)."""
        self.bodies: list[bytes] = []
        """Each scripted request's body as sent, byte for byte."""
        self._script: deque[Reply | Responder] = deque()
        self._cond = threading.Condition()
        self._counter = 0
        self._gates: list[threading.Event] = []
        self.disconnects = 0
        self.holding = 0
        self.models: list[dict[str, Any]] = [{"id": "fake-model"}]
        """The entries GET /v1/models lists (add e.g. `context_length` to report a window)."""
        self.default: Responder | None = None
        """Answers every request once the script is exhausted (None: "(script exhausted)")."""
        self.get_routes: dict[str, Callable[[], tuple[int, Any]]] = {}
        """Further GET paths (e.g. Ollama's `/api/ps`): path → (status, JSON body)."""
        self.post_routes: dict[str, Responder] = {}
        """Further POST paths (e.g. Ollama's `/api/chat`): path → the reply to send."""
        self.native_requests: list[tuple[str, dict[str, Any]]] = []
        """(path, body) of every request to a further route, GETs with an empty body."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:  # /v1/models, for health checks
                route = server.get_routes.get(self.path)
                status, answer = 200, {"object": "list", "data": server.models}
                if route is not None:
                    with server._cond:
                        server.native_requests.append((self.path, {}))
                        server._cond.notify_all()
                    status, answer = route()
                elif not self.path.endswith("/models"):
                    status, answer = 404, {"error": "not found"}
                body = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    payload = json.loads(raw)
                except ValueError:
                    payload = {"_invalid": raw.decode("utf-8", "replace")}
                route = server.post_routes.get(self.path)
                if route is not None:
                    with server._cond:
                        server.native_requests.append((self.path, payload))
                        server._cond.notify_all()
                    reply = route(payload)
                else:
                    reply = server._next(payload, dict(self.headers), self.path, raw)
                try:
                    server._send(self, reply)
                except (BrokenPipeError, ConnectionResetError):
                    with server._cond:
                        server.disconnects += 1
                        server._cond.notify_all()

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def push(self, *replies: Reply | Responder) -> None:
        with self._cond:
            self._script.extend(replies)

    def wait_requests(self, n: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Block until at least n requests arrived; returns them."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.requests) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"expected {n} model requests, got {len(self.requests)}")
                self._cond.wait(left)
            return list(self.requests)

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            for gate in self._gates:
                gate.set()  # a test that failed before releasing its reply
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(
        self, payload: dict[str, Any], headers: dict[str, str], path: str = "", raw: bytes = b""
    ) -> Reply:
        with self._cond:
            self.paths.append(path)
            self.bodies.append(raw)
            self.requests.append(payload)
            self.request_headers.append(headers)
            self._cond.notify_all()
            if self._script:
                item: Reply | Responder = self._script.popleft()
            else:
                item = self.default or text("(script exhausted)")
        return item(payload) if callable(item) else item

    def _next_id(self) -> str:
        with self._cond:
            self._counter += 1
            return f"call_{self._counter}"

    def _send(self, h: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.raw is not None and reply.status == 200:
            self._send_raw(h, reply, reply.raw)
            return
        if reply.status != 200:
            body = reply.body if reply.body is not None else '{"error":{"message":"error"}}'
            data = body.encode()
            h.send_response(reply.status)
            for k, v in reply.headers.items():
                h.send_header(k, v)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = True
        events = list(self._events(reply))
        for i, ev in enumerate(events):
            if ev is _HOLD:
                self._hold(h, reply)
                continue
            if reply.drop_after is not None and i >= reply.drop_after:
                h.wfile.flush()
                return
            h.wfile.write(f"data: {ev}\n\n".encode())
            h.wfile.flush()
            if i == 0 and reply.garbage is not None:
                h.wfile.write(f"{reply.garbage}\n\n".encode())
                h.wfile.flush()
                return
            if reply.gate is not None and i == (1 if reply.text else 0):
                with self._cond:
                    self._gates.append(reply.gate)
                reply.gate.wait()
            if i == 0 and reply.hang:
                while True:  # until the client disconnects
                    time.sleep(0.05)
                    h.wfile.write(b": keep-alive\n\n")
                    h.wfile.flush()
            if reply.delay:
                time.sleep(reply.delay)
        if not reply.no_done:
            h.wfile.write(b"data: [DONE]\n\n")
            h.wfile.flush()

    def _send_raw(self, h: BaseHTTPRequestHandler, reply: Reply, raw: bytes) -> None:
        h.send_response(200)
        h.send_header("Content-Type", reply.content_type)
        h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = True
        at = reply.raw_hold_at if reply.hold is not None else None
        for i in range(0, len(raw), reply.raw_piece):
            piece = raw[i : i + reply.raw_piece]
            if at is not None and i <= at < i + len(piece):
                h.wfile.write(piece[: at - i])
                h.wfile.flush()
                self._hold(h, reply)
                piece, at = piece[at - i :], None
            h.wfile.write(piece)
            h.wfile.flush()

    def _hold(self, h: BaseHTTPRequestHandler, reply: Reply) -> None:
        assert reply.hold is not None
        with self._cond:
            self.holding += 1
            self._cond.notify_all()
        while not reply.hold.wait(0.05):  # a comment now and then notices a gone client
            h.wfile.write(b": keep-alive\n\n")
            h.wfile.flush()

    def wait_holding(self, n: int = 1, timeout: float = 10.0) -> None:
        """Block until `n` streams have reached their hold."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.holding < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no stream reached its hold")
                self._cond.wait(left)

    def _events(self, reply: Reply) -> Any:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            return json.dumps(
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "model": "fake-model",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }
            )

        n = reply.chunk_size
        yield chunk({"role": "assistant", "content": ""})
        for i in range(0, len(reply.text), n):
            yield chunk({"content": reply.text[i : i + n]})
        held = reply.hold is None
        for idx, (name, args) in enumerate(reply.tool_calls):
            call_id = reply.call_ids[idx] if reply.call_ids else self._next_id()
            arg_text = args if isinstance(args, str) else json.dumps(args)
            yield chunk(
                {
                    "tool_calls": [
                        {
                            "index": idx,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
            if not held and idx == reply.hold_after:
                held = True
                yield _HOLD
            for i in range(0, len(arg_text), n):
                yield chunk(
                    {"tool_calls": [{"index": idx, "function": {"arguments": arg_text[i : i + n]}}]}
                )
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        yield chunk({}, finish)
        if not held:
            yield _HOLD
        usage = reply.usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        yield json.dumps(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "choices": [],
                "usage": usage,
            }
        )


def _reply_from_json(obj: dict[str, Any]) -> Reply:
    calls = [(c["name"], c["arguments"]) for c in obj.pop("tool_calls", [])]
    return Reply(tool_calls=calls, **obj)


def main() -> None:
    """Standalone: `python -m tests.fakes.model_server script.json`; prints the base URL."""
    script = json.loads(open(sys.argv[1]).read()) if len(sys.argv) > 1 else []
    with FakeModelServer() as srv:
        srv.push(*[_reply_from_json(r) for r in script])
        print(srv.base_url, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()

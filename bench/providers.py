"""First-token overhead of each provider module against a raw httpx request, run on demand:
`.venv/bin/python bench/providers.py`.

For each provider (Chat Completions, OpenAI Responses, Anthropic Messages) one real-shaped
stream (reasoning first, then the answer's text) is served over real HTTP on 127.0.0.1 by a
server in its own process (so it does not share the client's interpreter), a new connection
per request as the stream closes it:
- raw: `httpx.AsyncClient.stream` POST of the same JSON body, `aiter_lines`, `json.loads` of
  each `data:` line until the first text delta — the least any client must do;
- module: the provider's `ModelClient.stream` (request body, SSE decoding, the dialect's
  parser, the cancellable worker) until its first `TextDelta`.
Both run interleaved in the same client process, N times each; prints per provider the median
time to the first token of each, the median of the paired differences (the overhead) and the
median of the paired ratios module / raw. `--memory` serves the same bytes from memory instead
(httpx.MockTransport, 1,400-byte reads with a scheduling point between them), which measures
the client-side work alone: on a loaded machine the loopback server's jitter is larger than
the difference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ink_ls.core.config import ModelSettings, Provider  # noqa: E402
from ink_ls.core.messages import user_text  # noqa: E402
from ink_ls.core.signal import CancelController  # noqa: E402
from ink_ls.model.base import ModelRequest, TextDelta  # noqa: E402
from ink_ls.model.providers import dialect_for, make_client  # noqa: E402
from tests.fakes.providers import (  # noqa: E402
    AnthropicTurn,
    ResponsesTurn,
    anthropic_stream,
    responses_stream,
)

THOUGHT = "The user wants the start command; the README names it. " * 8
ANSWER = "Start it with `make start` after `make setup`. " * 20
REQUEST = ModelRequest(
    system="You are ink, a coding agent. " * 40,
    messages=[user_text("how do I start the project?")],
    tools=[
        {
            "name": "read",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
    ],
)


def chat_stream() -> bytes:
    def ev(delta: dict[str, Any], finish: str | None = None) -> str:
        chunk = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return "data: " + json.dumps(chunk) + "\n\n"

    parts = [ev({"role": "assistant", "content": ""})]
    parts += [ev({"reasoning_content": THOUGHT[i : i + 24]}) for i in range(0, len(THOUGHT), 24)]
    parts += [ev({"content": ANSWER[i : i + 6]}) for i in range(0, len(ANSWER), 6)]
    parts.append(ev({}, "stop"))
    parts.append("data: [DONE]\n\n")
    return "".join(parts).encode()


STREAMS: dict[Provider, Callable[[], bytes]] = {
    "openai-chat": chat_stream,
    "openai-responses": lambda: responses_stream(
        ResponsesTurn(reasoning=[("rs_1", THOUGHT, "gAAAA" * 200)], text=ANSWER)
    ),
    "anthropic": lambda: anthropic_stream(
        AnthropicTurn(thinking=[(THOUGHT, "Eq" * 200)], text=ANSWER)
    ),
}


def is_first_text(provider: Provider, data: dict[str, Any]) -> bool:
    """Whether one decoded event carries answer text (what the raw client waits for)."""
    if provider == "openai-chat":
        choices = data.get("choices") or [{}]
        return bool(choices[0].get("delta", {}).get("content"))
    if provider == "openai-responses":
        return data.get("type") == "response.output_text.delta"
    delta = data.get("delta")
    return isinstance(delta, dict) and delta.get("type") == "text_delta"


async def raw_first_token(
    http: httpx.AsyncClient, url: str, body: dict[str, object], provider: Provider
) -> float:
    start = time.perf_counter()
    async with http.stream("POST", url, json=body) as resp:
        async for line in resp.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                if is_first_text(provider, json.loads(line[6:])):
                    return time.perf_counter() - start
    raise AssertionError("no text in the stream")


async def module_first_token(client: Any) -> float:
    start = time.perf_counter()
    async for item in client.stream(REQUEST, CancelController().signal):
        if isinstance(item, TextDelta):
            elapsed = time.perf_counter() - start
            break
    else:
        raise AssertionError("no text in the stream")
    return elapsed


PATHS: dict[str, Provider] = {
    "/v1/chat/completions": "openai-chat",
    "/v1/responses": "openai-responses",
    "/v1/messages": "anthropic",
}


def serve() -> None:
    """The stream server (`--serve`): prints its base URL, serves until stdin closes."""
    bodies = {path: STREAMS[provider]() for path, provider in PATHS.items()}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            raw = bodies[self.path]
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                for i in range(0, len(raw), 1400):  # network-sized pieces
                    self.wfile.write(raw[i : i + 1400])
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client had its first token and left

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    print(f"http://127.0.0.1:{httpd.server_address[1]}/v1", flush=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    sys.stdin.read()
    httpd.shutdown()


def memory_transport() -> httpx.MockTransport:
    """The streams of `STREAMS` by path, in network-sized reads with a scheduling point."""
    bodies = {path: STREAMS[provider]() for path, provider in PATHS.items()}

    def handler(request: httpx.Request) -> httpx.Response:
        raw = bodies[request.url.path]

        async def pieces() -> AsyncIterator[bytes]:
            for i in range(0, len(raw), 1400):
                await asyncio.sleep(0)
                yield raw[i : i + 1400]

        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=pieces())

    return httpx.MockTransport(handler)


async def measure(
    base_url: str, provider: Provider, runs: int, transport: httpx.AsyncBaseTransport | None
) -> tuple[float, float, float, float]:
    settings = ModelSettings(base_url=base_url, model="m", provider=provider)
    dialect = dialect_for(provider)
    url = dialect.url(settings.base_url)
    body = dialect.body(REQUEST, settings)
    client = make_client(settings, transport=transport)
    raw_times: list[float] = []
    module_times: list[float] = []
    async with httpx.AsyncClient(transport=transport) as http:
        for n in range(runs + 5):  # the first five warm both paths up
            raw = await raw_first_token(http, url, body, provider)
            ours = await module_first_token(client)
            if n >= 5:
                raw_times.append(raw)
                module_times.append(ours)
    await client.aclose()
    pairs = list(zip(module_times, raw_times, strict=True))
    overhead = statistics.median(m - r for m, r in pairs)
    ratio = statistics.median(m / r for m, r in pairs)
    return statistics.median(raw_times), statistics.median(module_times), overhead, ratio


def row(provider: str, raw: float, ours: float, overhead: float, ratio: float) -> str:
    """One line of the table: medians, the median paired overhead and paired ratio."""
    return (
        f"{provider:18} {raw * 1e3:8.3f} ms {ours * 1e3:8.3f} ms "
        f"{overhead * 1e6:7.0f} µs {ratio:6.2f}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--memory", action="store_true", help="serve the streams from memory")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    if args.memory:
        print(f"median time to the first answer token over {args.runs} requests (from memory)")
        print(f"{'provider':18} {'raw httpx':>11} {'module':>11} {'overhead':>10} {'ratio':>6}")
        for provider in STREAMS:
            figures = await measure("http://bench.test/v1", provider, args.runs, memory_transport())
            print(row(provider, *figures))
        return
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().decode().strip()
        print(f"median time to the first answer token over {args.runs} requests (loopback HTTP)")
        print(f"{'provider':18} {'raw httpx':>11} {'module':>11} {'overhead':>10} {'ratio':>6}")
        for provider in STREAMS:
            print(row(provider, *await measure(base_url, provider, args.runs, None)))
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(10)


if __name__ == "__main__":
    asyncio.run(main())

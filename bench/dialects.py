"""First-token overhead of the Chat Completions client per server dialect, run on demand:
`.venv/bin/python bench/dialects.py [--rounds N]`.

Each dialect's real-shaped tool-calling reply (tests/fakes/dialects.py) is served from memory
in 61-byte pieces with a scheduling point between them, as reads from a socket would come
(httpx.MockTransport, so only client-side work is measured; a loopback server's own jitter on
a loaded machine is larger than the difference). For each, in the same run, interleaved:
- raw: an httpx POST streamed with `aiter_lines`, until the first `data:` line that parses
  as JSON (the least any client must do before it can show a first token);
- ink: `OpenAIClient.stream` until its first item (a thinking or text delta, or a call),
  SSE decoding, assembly and the cancellable worker included;
and the whole reply through both. Ollama's native `/api/chat` (the path taken when the window
is set) is measured the same way. Prints medians in µs and the overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ink_ls.core.config import ModelSettings  # noqa: E402
from ink_ls.core.messages import user_text  # noqa: E402
from ink_ls.core.signal import NEVER  # noqa: E402
from ink_ls.model.base import ModelRequest, ReplyDone  # noqa: E402
from ink_ls.model.client import OpenAIClient  # noqa: E402
from tests.fakes.dialects import THOUGHT, all_dialects  # noqa: E402
from tests.fakes.ollama import MODEL, native_turn  # noqa: E402

REQUEST = ModelRequest("You are a benchmark.", [user_text("what do the notes say?")])


async def raw_first(
    http: httpx.AsyncClient, url: str, body: dict[str, object]
) -> tuple[float, float]:
    start = time.perf_counter()
    first = 0.0
    async with http.stream("POST", url, json=body) as resp:
        async for line in resp.aiter_lines():
            data = line.removeprefix("data:").strip()
            if not first and data.startswith("{"):
                json.loads(data)
                first = time.perf_counter() - start
    return first, time.perf_counter() - start


async def ink_first(client: OpenAIClient) -> tuple[float, float]:
    start = time.perf_counter()
    first = 0.0
    async for item in client.stream(REQUEST, NEVER):
        if not first:
            first = time.perf_counter() - start
        if isinstance(item, ReplyDone):
            break
    return first, time.perf_counter() - start


def transport(raw: bytes, content_type: str) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/api/version"):
            return httpx.Response(200, json={"version": "0.12.6"})

        async def pieces() -> AsyncIterator[bytes]:
            for i in range(0, len(raw), 61):
                await asyncio.sleep(0)  # a network read: the consumer may run in between
                yield raw[i : i + 61]

        return httpx.Response(200, headers={"content-type": content_type}, content=pieces())

    return httpx.MockTransport(answer)


async def measure(
    raw: bytes, url: str, settings: ModelSettings, rounds: int, content_type: str
) -> dict[str, float]:
    mock = transport(raw, content_type)
    client = OpenAIClient(settings, transport=mock)
    body = {"model": settings.model, "messages": [{"role": "user", "content": "q"}]}
    out: dict[str, list[float]] = {"raw": [], "ink": [], "raw_all": [], "ink_all": []}
    async with httpx.AsyncClient(transport=mock) as http:
        for _ in range(5):  # warm both paths
            await raw_first(http, url, body)
            await ink_first(client)
        for _ in range(rounds):
            first, whole = await raw_first(http, url, body)
            out["raw"].append(first)
            out["raw_all"].append(whole)
            first, whole = await ink_first(client)
            out["ink"].append(first)
            out["ink_all"].append(whole)
    await client.aclose()
    return {k: statistics.median(v) * 1e6 for k, v in out.items()}


def line(name: str, m: dict[str, float]) -> str:
    return (
        f"{name:24} first token: raw {m['raw']:7.0f} µs  ink {m['ink']:7.0f} µs "
        f"({m['ink'] - m['raw']:+6.0f})   whole reply: raw {m['raw_all']:7.0f}  "
        f"ink {m['ink_all']:7.0f} µs"
    )


async def main(rounds: int) -> None:
    base = "http://bench.test/v1"
    settings = ModelSettings(base_url=base, model="m")
    for dialect in all_dialects():
        m = await measure(
            dialect.tool_turn, base + "/chat/completions", settings, rounds, "text/event-stream"
        )
        print(line(dialect.name, m), flush=True)
    raw = native_turn(thinking=THOUGHT, calls=[("read", {"path": "notes.txt"})])
    native = ModelSettings(base_url=base, model=MODEL, context_window=65536)
    m = await measure(raw, "http://bench.test/api/chat", native, rounds, "application/x-ndjson")
    print(line("Ollama native /api/chat", m), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    asyncio.run(main(parser.parse_args().rounds))

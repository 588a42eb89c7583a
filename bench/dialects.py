"""First-token overhead of the Chat Completions client per server dialect, run on demand:
`.venv/bin/python bench/dialects.py [--rounds N]`.

Each dialect's real-shaped tool-calling reply (tests/fakes/dialects.py) is served from the
loopback fake server. For each, in the same run and interleaved:
- raw: an httpx POST streamed with `aiter_lines`, until the first `data:` line that parses
  as JSON (the least any client must do before it can show a first token);
- ink: `OpenAIClient.stream` until its first item (a thinking or text delta, or a call),
  SSE decoding, assembly and the cancellable worker included;
and the whole reply through both. Ollama's native `/api/chat` (the path taken when the window
is set) is measured the same way against a fake Ollama. Prints medians in ms and the overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ink_ls.core.config import ModelSettings  # noqa: E402
from ink_ls.core.messages import user_text  # noqa: E402
from ink_ls.core.signal import NEVER  # noqa: E402
from ink_ls.model.base import ModelRequest, ReplyDone  # noqa: E402
from ink_ls.model.client import OpenAIClient  # noqa: E402
from tests.fakes.dialects import THOUGHT, all_dialects  # noqa: E402
from tests.fakes.model_server import FakeModelServer, Reply  # noqa: E402
from tests.fakes.ollama import MODEL, FakeOllama, native_turn  # noqa: E402

REQUEST = ModelRequest("You are a benchmark.", [user_text("what do the notes say?")])


async def raw_first(http: httpx.AsyncClient, url: str, body: dict[str, object]) -> tuple[float, float]:
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


async def measure(
    srv: FakeModelServer, raw: bytes, url: str, body: dict[str, object], settings: ModelSettings,
    rounds: int, content_type: str = "text/event-stream", native: bool = False,
) -> dict[str, float]:
    srv.default = lambda payload: Reply(raw=raw, content_type=content_type)
    if native:
        srv.post_routes["/api/chat"] = srv.default
    client = OpenAIClient(settings)
    out: dict[str, list[float]] = {"raw": [], "ink": [], "raw_all": [], "ink_all": []}
    async with httpx.AsyncClient(timeout=30) as http:
        for _ in range(3):  # warm both connection paths
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
    return {k: statistics.median(v) * 1000 for k, v in out.items()}


def line(name: str, m: dict[str, float]) -> str:
    return (
        f"{name:24} first token: raw {m['raw']:6.2f} ms  ink {m['ink']:6.2f} ms  "
        f"(+{m['ink'] - m['raw']:5.2f})   whole reply: raw {m['raw_all']:6.2f}  "
        f"ink {m['ink_all']:6.2f}"
    )


async def main(rounds: int) -> None:
    with FakeModelServer() as srv:
        settings = ModelSettings(base_url=srv.base_url, model="m")
        body = {"model": "m", "messages": [{"role": "user", "content": "q"}], "stream": True}
        for dialect in all_dialects():
            m = await measure(
                srv, dialect.tool_turn, srv.base_url + "/chat/completions", body, settings, rounds
            )
            print(line(dialect.name, m), flush=True)
    with FakeOllama() as ollama:
        raw = native_turn(thinking=THOUGHT, calls=[("read", {"path": "notes.txt"})])
        root = ollama.base_url.removesuffix("/v1")
        settings = ModelSettings(base_url=ollama.base_url, model=MODEL, context_window=65536)
        native_body = {"model": MODEL, "messages": [{"role": "user", "content": "q"}]}
        m = await measure(
            ollama, raw, root + "/api/chat", native_body, settings, rounds,
            content_type="application/x-ndjson", native=True,
        )
        print(line("Ollama native /api/chat", m), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60)
    asyncio.run(main(parser.parse_args().rounds))

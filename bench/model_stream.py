"""Benchmark of the model client's streaming path, run on demand:
`.venv/bin/python bench/model_stream.py`.

One reply of N text chunks plus a tool call whose arguments arrive in N/4 pieces, served from
memory (httpx.MockTransport), so only client-side work is measured:
- baseline: the same body through httpx `aiter_lines` + `json.loads` per `data:` line (the
  least any client must do);
- ink: `OpenAIClient.stream` end to end (SSE decoding, assembly, the cancellable worker).
Prints µs per chunk for both and their ratio, best of R rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import httpx

from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import user_text
from ink_ls.core.signal import CancelController
from ink_ls.model.base import ModelRequest, ReplyDone
from ink_ls.model.client import OpenAIClient


def make_body(chunks: int) -> bytes:
    def ev(delta: dict[str, object], finish: str | None = None) -> str:
        data = {
            "id": "x",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return "data: " + json.dumps(data) + "\n\n"

    parts = [ev({"role": "assistant", "content": ""})]
    parts += [ev({"content": f"word{i} "}) for i in range(chunks)]
    parts.append(
        ev(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "read", "arguments": ""},
                    }
                ]
            }
        )
    )
    parts += [
        ev({"tool_calls": [{"index": 0, "function": {"arguments": "ab"}}]})
        for _ in range(chunks // 4)
    ]
    parts.append(ev({}, "tool_calls"))
    parts.append('data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}\n\n')
    parts.append("data: [DONE]\n\n")
    return "".join(parts).encode()


def transport(body: bytes) -> httpx.MockTransport:
    async def stream() -> object:
        for i in range(0, len(body), 4096):  # network-sized pieces
            yield body[i : i + 4096]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=stream())  # type: ignore[arg-type]

    return httpx.MockTransport(handler)


async def baseline(body: bytes) -> float:
    async with httpx.AsyncClient(transport=transport(body)) as client:
        start = time.perf_counter()
        async with client.stream("POST", "http://bench/v1/chat/completions", json={}) as resp:
            async for line in resp.aiter_lines():
                if line.startswith("data: ") and line != "data: [DONE]":
                    json.loads(line[6:])
        return time.perf_counter() - start


async def ink(body: bytes) -> float:
    settings = ModelSettings(base_url="http://bench/v1", model="m")
    client = OpenAIClient(settings, transport=transport(body))
    request = ModelRequest(system="s", messages=[user_text("hi")])
    start = time.perf_counter()
    final = None
    async for item in client.stream(request, CancelController().signal):
        if isinstance(item, ReplyDone):
            final = item.message
    elapsed = time.perf_counter() - start
    await client.aclose()
    assert final is not None and final.tool_calls and final.text.startswith("word0 ")
    return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    body = make_body(args.chunks)
    events = args.chunks + args.chunks // 4 + 4
    base = min([await baseline(body) for _ in range(args.rounds)])
    ours = min([await ink(body) for _ in range(args.rounds)])
    print(f"events per reply: {events}, body {len(body) / 1e6:.1f} MB, best of {args.rounds}")
    print(f"baseline (httpx lines + json.loads): {base / events * 1e6:6.2f} µs/event")
    print(f"OpenAIClient.stream:                 {ours / events * 1e6:6.2f} µs/event")
    print(f"ratio ink / baseline: {ours / base:.2f}")


if __name__ == "__main__":
    asyncio.run(main())

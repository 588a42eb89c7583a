"""Benchmark of the language server, run on demand: `.venv/bin/python bench/server.py`.

1. Latency: one turn with one `read` call (two scripted model replies) through
   `python -m ink_ls --stdio` over real stdio JSON-RPC, median of N, against the same turn run
   in-process (the same `Agent`, tools and model client, no server) measured in this run.
2. Burst: a reply streamed as many one-character deltas; `ink/session/update` notifications
   per second the client receives, against the text-delta events per second the in-process
   agent emits for the same reply.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ink_ls.agent.events import AgentEvent, TextDeltaEvent  # noqa: E402
from ink_ls.agent.loop import Agent, AgentOptions  # noqa: E402
from ink_ls.core.config import ModelSettings  # noqa: E402
from ink_ls.core.tool import ToolRegistry  # noqa: E402
from ink_ls.model.client import OpenAIClient  # noqa: E402
from ink_ls.protocol import methods  # noqa: E402
from ink_ls.tools.builtin import builtin_tools  # noqa: E402
from tests.fakes.model_server import FakeModelServer, Reply, text, tool  # noqa: E402


class StdioClient:
    """A minimal JSON-RPC client over the server's stdio (LSP framing)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._next = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self.on_update: Any = None
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while True:
            length = 0
            while (header := await self.proc.stdout.readline()) not in (b"\r\n", b""):
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            if not header:
                return
            msg = json.loads(await self.proc.stdout.readexactly(length))
            if "method" in msg and "id" in msg:  # a server request: accept everything
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            elif "method" in msg:
                if msg["method"] == methods.SESSION_UPDATE and self.on_update:
                    self.on_update(msg["params"])
            elif msg.get("id") in self._pending:
                fut = self._pending.pop(msg["id"])
                fut.set_result(msg.get("result", msg.get("error")))

    def _send(self, msg: dict[str, Any]) -> None:
        body = json.dumps(msg).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any) -> Any:
        self._next += 1
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[self._next] = fut
        self._send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        return await fut

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})


async def start_server(workspace: Path, base_url: str, state: Path) -> StdioClient:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INK_", "OPENAI_"))}
    env["INK_STATE_DIR"] = str(state)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ink_ls",
        "--stdio",
        "--log-level",
        "warning",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=str(REPO),
        env=env,
    )
    client = StdioClient(proc)
    await client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": workspace.as_uri(),
            "capabilities": {},
            "initializationOptions": {
                "ink": {"model": {"baseUrl": base_url, "model": "bench"}, "approval": "auto"}
            },
        },
    )
    client.notify("initialized", {})
    return client


async def stop_server(client: StdioClient) -> None:
    await client.request("shutdown", None)
    client.notify("exit", None)
    await client.proc.wait()


def in_process_agent(workspace: Path, model: OpenAIClient, sink: Any) -> Agent:
    """The baseline: the same agent, tools and (reused) model client, without a server."""
    tools = ToolRegistry(builtin_tools())
    return Agent(model, tools, AgentOptions(cwd=workspace), on_event=sink)


def model_client(base_url: str) -> OpenAIClient:
    return OpenAIClient(ModelSettings(base_url=base_url, model="bench"))


async def latency(runs: int, workspace: Path, srv: FakeModelServer, state: Path) -> None:
    client = await start_server(workspace, srv.base_url, state)
    served: list[float] = []
    for _ in range(runs + 2):
        srv.push(tool("read", {"path": "README.md"}), text("ok"))
        t0 = time.perf_counter()
        result = await client.request(methods.SESSION_PROMPT, {"prompt": "read README.md"})
        served.append(time.perf_counter() - t0)
        assert result["stopReason"] == "end_turn", result
    await stop_server(client)
    direct: list[float] = []
    model = model_client(srv.base_url)
    for _ in range(runs + 2):
        srv.push(tool("read", {"path": "README.md"}), text("ok"))
        agent = in_process_agent(workspace, model, lambda e: None)
        t0 = time.perf_counter()
        run = await agent.run("read README.md")
        direct.append(time.perf_counter() - t0)
        assert run.stop_reason == "completed"
    await model.aclose()
    s, d = statistics.median(served[2:]), statistics.median(direct[2:])
    print(
        f"read turn latency, median of {runs}: server {s * 1000:.1f} ms, "
        f"in-process baseline {d * 1000:.1f} ms, ratio {s / d:.2f}x "
        f"(+{(s - d) * 1000:.1f} ms for JSON-RPC, updates, progress)"
    )


async def burst_once(
    chars: int, workspace: Path, srv: FakeModelServer, state: Path
) -> tuple[int, float, float]:
    reply = "x" * chars
    client = await start_server(workspace, srv.base_url, state)
    times: list[float] = []
    client.on_update = lambda params: times.append(time.perf_counter())
    srv.push(Reply(text=reply, chunk_size=1))
    await client.request(methods.SESSION_PROMPT, {"prompt": "burst"})
    await stop_server(client)
    server_rate = (len(times) - 1) / (times[-1] - times[0])

    stamps: list[float] = []

    def sink(event: AgentEvent) -> None:
        if isinstance(event, TextDeltaEvent):
            stamps.append(time.perf_counter())

    srv.push(Reply(text=reply, chunk_size=1))
    model = model_client(srv.base_url)
    await in_process_agent(workspace, model, sink).run("burst")
    await model.aclose()
    direct_rate = (len(stamps) - 1) / (stamps[-1] - stamps[0])
    return len(times), server_rate, direct_rate


async def burst(
    chars: int, repeat: int, workspace: Path, srv: FakeModelServer, state: Path
) -> None:
    rounds = [await burst_once(chars, workspace, srv, state) for _ in range(repeat)]
    n = rounds[0][0]
    server_rate = statistics.median(r[1] for r in rounds)
    direct_rate = statistics.median(r[2] for r in rounds)
    print(
        f"burst of {chars} one-character deltas (median of {repeat}): client received "
        f"{n} ink/session/update, {server_rate:,.0f}/s; in-process baseline "
        f"{direct_rate:,.0f} text events/s; ratio {server_rate / direct_rate:.2f}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--chars", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as srv:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        (workspace / "README.md").write_text("# Demo\n\nRun `npm start`.\n" * 20)
        await latency(args.runs, workspace, srv, Path(tmp) / "state")
        await burst(args.chars, args.repeat, workspace, srv, Path(tmp) / "state")


if __name__ == "__main__":
    asyncio.run(main())

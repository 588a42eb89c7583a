"""Prompt → tool running, run on demand: `.venv/bin/python bench/dispatch.py [--runs 100]`.

The scripted loopback model answers every first request at once with a `read` call (then
"ok"). Measured per prompt: from sending it to the `in_progress` update of the call (the tool
runs), through the language server (`ink/session/prompt`, `ink/session/update`) and over ACP
(`session/prompt`, `session/update`), for a new session's first prompt and for a follow-up;
beside it the part before the model request arrived at the model, and the floor: a raw HTTP
round trip of the same request body with a fresh httpx client. Prints p50 and p99 (ms).
Targets: p50 <= 3 ms, p99 <= 6 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# as in bench/acp.py: bench/ must not shadow the `acp` SDK package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
from acp import PROTOCOL_VERSION, spawn_agent_process, text_block  # noqa: E402
from acp.schema import ClientCapabilities  # noqa: E402

from bench.acp import LspClient, QuietClient, server_env  # noqa: E402
from tests.fakes.model_server import FakeModelServer, Reply, text, tool  # noqa: E402


class Clock:
    """When the model got its last request, and when the current call started running."""

    def __init__(self, srv: FakeModelServer) -> None:
        self.arrived = 0.0
        self.running: asyncio.Future[float] | None = None
        self.loop = asyncio.get_running_loop()
        srv.default = self.answer

    def answer(self, payload: dict[str, Any]) -> Reply:
        if not payload.get("messages") or payload["messages"][-1]["role"] != "tool":
            self.arrived = self.arrived or time.perf_counter()
            return tool("read", {"path": "README.md"})
        return text("ok")

    def arm(self) -> asyncio.Future[float]:
        self.arrived = 0.0
        self.running = self.loop.create_future()
        return self.running

    def ran(self) -> None:
        if self.running is not None and not self.running.done():
            self.running.set_result(time.perf_counter())


class LspWatch(LspClient):
    """The bench's LSP client, told of `in_progress` tool updates."""

    def __init__(self, proc: asyncio.subprocess.Process, clock: Clock) -> None:
        self.clock = clock
        super().__init__(proc)

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
            update = (msg.get("params") or {}).get("update") or {}
            if msg.get("method") == "ink/session/update" and update.get("phase") == "running":
                self.clock.ran()
            elif "method" in msg and "id" in msg:
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            elif "id" in msg and msg["id"] in self._pending:
                self._pending.pop(msg["id"]).set_result(msg.get("result", msg.get("error")))


class AcpWatch(QuietClient):
    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        if getattr(update, "status", None) == "in_progress":
            self.clock.ran()


Samples = dict[str, list[tuple[float, float]]]
"""Per row: (prompt → running, prompt → model request arrived) in seconds."""


async def timed(clock: Clock, send: Any, *args: Any) -> tuple[float, float]:
    running = clock.arm()
    start = time.perf_counter()
    done = asyncio.ensure_future(send(*args))
    ran = await running
    await done
    return ran - start, clock.arrived - start


async def floor(srv: FakeModelServer, runs: int) -> list[float]:
    """A raw HTTP round trip of the last request body (a new connection each, as ink-ls's
    requests to the scripted model make one)."""
    body = json.dumps(srv.requests[-1]).encode()
    out = []
    for _ in range(runs):
        async with httpx.AsyncClient() as client:
            start = time.perf_counter()
            resp = await client.post(srv.base_url + "/chat/completions", content=body)
            out.append(time.perf_counter() - start)
            assert resp.status_code == 200
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)] * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=100)
    runs = parser.parse_args().runs
    samples: Samples = {}
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as srv:
        clock = Clock(srv)
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "README.md").write_text("# Bench\n\n" + "A line of the readme.\n" * 20)
        env = server_env(srv.base_url, Path(tmp) / "state")
        async with contextlib.AsyncExitStack() as stack:
            conn, _ = await stack.enter_async_context(
                spawn_agent_process(
                    AcpWatch(clock), sys.executable, "-m", "ink_ls", "--acp", env=env, cwd=ws
                )
            )
            await conn.initialize(
                protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
            )
            proc = await asyncio.create_subprocess_exec(
                *(sys.executable, "-m", "ink_ls", "--stdio", "--log-level", "warning"),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                cwd=ws,
                env=env,
            )
            lsp = LspWatch(proc, clock)
            options = {"model": {"model": "bench"}, "approval": "auto"}
            await lsp.request(
                "initialize",
                {
                    "processId": os.getpid(),
                    "rootUri": ws.as_uri(),
                    "capabilities": {},
                    "initializationOptions": {"ink": options},
                },
            )
            lsp.notify("initialized", {})

            async def lsp_prompt(session: str | None) -> str:
                params = {"prompt": "read README.md"} | ({"sessionId": session} if session else {})
                answer = await lsp.request("ink/session/prompt", params)
                assert answer["stopReason"] == "end_turn", answer
                return str(answer["sessionId"])

            async def acp_prompt(session: str) -> None:
                done = await conn.prompt(session_id=session, prompt=[text_block("read it")])
                assert done.stop_reason == "end_turn", done

            for i in range(runs + 3):  # the first three warm up
                sid: list[str] = []
                first = await timed(clock, lsp_prompt, None)
                sid.append(await lsp_prompt(None))  # a session to follow up in
                follow = await timed(clock, lsp_prompt, sid[0])
                new = await conn.new_session(cwd=str(ws), mcp_servers=[])
                await conn.set_session_mode(session_id=new.session_id, mode_id="auto")
                acp_first = await timed(clock, acp_prompt, new.session_id)
                acp_follow = await timed(clock, acp_prompt, new.session_id)
                if i >= 3:
                    for name, value in (
                        ("language server, first prompt", first),
                        ("language server, follow-up", follow),
                        ("ACP, first prompt", acp_first),
                        ("ACP, follow-up", acp_follow),
                    ):
                        samples.setdefault(name, []).append(value)
            await lsp.request("shutdown", None)
            lsp.notify("exit", None)
            await proc.wait()
        base = await floor(srv, runs)
    print(f"prompt -> tool running, {runs} prompts each (ms; targets p50 <= 3, p99 <= 6):")
    print(f"  {'':32} {'p50':>6} {'p99':>6}   before the request left (p50)")
    for name, values in samples.items():
        whole = [v[0] for v in values]
        before = statistics.median(v[1] for v in values) * 1000
        print(f"  {name:32} {pct(whole, 0.5):6.1f} {pct(whole, 0.99):6.1f}   {before:6.1f}")
    print(f"  {'floor: raw HTTP round trip':32} {pct(base, 0.5):6.1f} {pct(base, 0.99):6.1f}")


if __name__ == "__main__":
    asyncio.run(main())

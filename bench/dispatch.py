"""Prompt → tool running, run on demand: `.venv/bin/python bench/dispatch.py [--runs 100]`.

The model (`bench/burst_model.py --dispatch`, a process of its own so its work is not ours)
answers every first request at once with a `read` call (then "ok"). Measured per prompt: from
sending it to the `in_progress` update of the call (the tool runs), through the language
server (`ink/session/prompt`, `ink/session/update`) and over ACP (`session/prompt`,
`session/update`), for a new session's first prompt and for a follow-up. "Ours" is that time
less the model's own: (prompt sent → request arrived at the model) + (reply written → the tool
runs), on the monotonic clock every process shares. The floor: a raw HTTP round trip of the
same request body (a fresh httpx client each, and one kept-alive client). Prints p50 and p99
(ms). Targets for our own time: p50 <= 3 ms, p99 <= 6 ms.

`--progress`: the LSP client announces `window.workDoneProgress` (as VS Code does), so each
turn also has a progress token. `--against DIR`: the same prompts, interleaved round by round,
through the servers of another checkout (e.g. main's). `--profile PATH`: the language server
of this checkout runs under cProfile (CPU time) and writes its profile there.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
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
from bench.burst import PROFILED, model_server  # noqa: E402

Sample = tuple[float, float, float]
"""(prompt → running, prompt → request arrived, reply written → running) in seconds."""


class Clock:
    """When the current call started running (told by the clients)."""

    def __init__(self) -> None:
        self.running: asyncio.Future[float] | None = None

    def arm(self) -> asyncio.Future[float]:
        self.running = asyncio.get_running_loop().create_future()
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


@dataclass
class Servers:
    """One checkout's language server and ACP agent, and what was measured through them."""

    label: str
    lsp: LspWatch
    acp: Any
    samples: dict[str, list[Sample]] = field(default_factory=dict)


async def model_times(base: str) -> tuple[float, float]:
    async with httpx.AsyncClient() as http:
        arrived, replied = (await http.get(base + "/count")).json()["times"]
    return float(arrived), float(replied)


async def timed(clock: Clock, base: str, send: Any, *args: Any) -> Sample:
    running = clock.arm()
    start = time.perf_counter()
    done = asyncio.ensure_future(send(*args))
    ran = await running
    await done
    arrived, replied = await model_times(base)
    return ran - start, arrived - start, ran - replied


@contextlib.asynccontextmanager
async def servers(
    label: str,
    checkout: Path,
    ws: Path,
    env: dict[str, str],
    clock: Clock,
    *,
    progress: bool,
    profile: str | None,
) -> AsyncIterator[Servers]:
    venv = checkout / ".venv" / "bin" / "python"
    python = str(venv) if venv.exists() else sys.executable
    env = env | {"PYTHONPATH": str(checkout)}
    async with spawn_agent_process(
        AcpWatch(clock), python, "-m", "ink_ls", "--acp", env=env, cwd=ws
    ) as (conn, _):
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
        )
        run = ("-m", "ink_ls") if profile is None else ("-c", PROFILED.format(path=profile))
        proc = await asyncio.create_subprocess_exec(
            *(python, *run, "--stdio", "--log-level", "warning"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=ws,
            env=env,
        )
        lsp = LspWatch(proc, clock)
        caps = {"window": {"workDoneProgress": True}} if progress else {}
        options = {"model": {"model": "bench", "contextWindow": 32_768}, "approval": "auto"}
        await lsp.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": ws.as_uri(),
                "capabilities": caps,
                "initializationOptions": {"ink": options},
            },
        )
        lsp.notify("initialized", {})
        try:
            yield Servers(label, lsp, conn)
        finally:
            await lsp.request("shutdown", None)
            lsp.notify("exit", None)
            await proc.wait()


async def one_round(s: Servers, clock: Clock, base: str, ws: Path, keep: bool) -> None:
    async def lsp_prompt(session: str | None) -> str:
        params = {"prompt": "read README.md"} | ({"sessionId": session} if session else {})
        answer = await s.lsp.request("ink/session/prompt", params)
        assert answer["stopReason"] == "end_turn", answer
        return str(answer["sessionId"])

    async def acp_prompt(session: str) -> None:
        done = await s.acp.prompt(session_id=session, prompt=[text_block("read it")])
        assert done.stop_reason == "end_turn", done

    first = await timed(clock, base, lsp_prompt, None)
    sid = await lsp_prompt(None)  # a session to follow up in
    follow = await timed(clock, base, lsp_prompt, sid)
    new = await s.acp.new_session(cwd=str(ws), mcp_servers=[])
    await s.acp.set_session_mode(session_id=new.session_id, mode_id="auto")
    acp_first = await timed(clock, base, acp_prompt, new.session_id)
    acp_follow = await timed(clock, base, acp_prompt, new.session_id)
    if keep:
        for name, value in (
            ("language server, first prompt", first),
            ("language server, follow-up", follow),
            ("ACP, first prompt", acp_first),
            ("ACP, follow-up", acp_follow),
        ):
            s.samples.setdefault(name, []).append(value)


async def floor(base: str, body: bytes, runs: int) -> tuple[list[float], list[float]]:
    """A raw HTTP round trip of a request body: a new client (and connection) each, and one
    kept-alive client."""
    fresh, kept = [], []
    url = base + "/chat/completions"
    for _ in range(runs):
        async with httpx.AsyncClient() as client:
            start = time.perf_counter()
            resp = await client.post(url, content=body)
            fresh.append(time.perf_counter() - start)
            assert resp.status_code == 200
    async with httpx.AsyncClient() as client:
        for _ in range(runs):
            start = time.perf_counter()
            resp = await client.post(url, content=body)
            kept.append(time.perf_counter() - start)
    return fresh, kept


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)] * 1000


def report(s: Servers) -> None:
    print(f"{s.label}:")
    print(
        f"  {'':32} {'whole p50':>9} {'p99':>6}   {'ours p50':>8} {'p99':>6}   "
        f"{'before the model p50':>20} {'after p50':>9}"
    )
    for name, values in s.samples.items():
        whole, ours = [v[0] for v in values], [v[1] + v[2] for v in values]
        before, after = [v[1] for v in values], [v[2] for v in values]
        print(
            f"  {name:32} {pct(whole, 0.5):9.1f} {pct(whole, 0.99):6.1f}   "
            f"{pct(ours, 0.5):8.1f} {pct(ours, 0.99):6.1f}   "
            f"{pct(before, 0.5):20.1f} {pct(after, 0.5):9.1f}"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--progress", action="store_true", help="the client offers progress")
    parser.add_argument("--against", type=Path, help="also the servers of this checkout")
    parser.add_argument("--profile", help="write this checkout's language server's cProfile")
    opts = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    clock = Clock()
    checkouts = [("this checkout", REPO)]
    if opts.against is not None:
        checkouts.append((f"the servers of {opts.against}", opts.against.resolve()))
    async with model_server(0.0, dispatch=True) as base, contextlib.AsyncExitStack() as stack:
        with tempfile.TemporaryDirectory() as tmp:
            ws = Path(tmp) / "ws"
            ws.mkdir()
            (ws / "README.md").write_text("# Bench\n\n" + "A line of the readme.\n" * 20)
            env = server_env(base, Path(tmp) / "state")
            runs = []
            for index, (label, checkout) in enumerate(checkouts):
                profile = opts.profile if index == 0 else None
                runs.append(
                    await stack.enter_async_context(
                        servers(
                            label, checkout, ws, env, clock, progress=opts.progress, profile=profile
                        )
                    )
                )
            for i in range(opts.runs + 3):  # the first three warm up
                for s in runs:
                    await one_round(s, clock, base, ws, keep=i >= 3)
            await stack.aclose()
        body = json.dumps({"model": "bench", "stream": True, "messages": [{"role": "user"}]})
        fresh, kept = await floor(base, body.encode(), opts.runs)
    print(f"prompt -> tool running, {opts.runs} prompts each (ms; ours: p50 <= 3, p99 <= 6)")
    for s in runs:
        report(s)
    print(
        f"  {'floor: raw HTTP, new connection':32} {pct(fresh, 0.5):9.1f} {pct(fresh, 0.99):6.1f}"
    )
    print(f"  {'floor: raw HTTP, kept alive':32} {pct(kept, 0.5):9.1f} {pct(kept, 0.99):6.1f}")


if __name__ == "__main__":
    asyncio.run(main())

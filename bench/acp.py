"""Benchmark of the ACP front end, run on demand: `.venv/bin/python bench/acp.py [--runs N]`.

One prompt round trip with one `read` call (two scripted model replies, the same loopback
model for both) through `ink-ls --acp` (the Python SDK's client over stdio) and through our LSP
front end (`ink-ls --stdio`, `ink/session/prompt` over LSP framing), median of N. The two
servers run side by side and the turns alternate, so machine load hits both alike. A third
column has the ACP turn with the client's `fs/read_text_file` (reads go through the client, as
in Zed). Prints medians and the ratio ACP / LSP.
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
# Run as a script, this file's directory comes first on sys.path and this module would shadow
# the `acp` SDK package it measures: drop bench/ from the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(REPO))

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block  # noqa: E402
from acp.schema import (  # noqa: E402
    ClientCapabilities,
    FileSystemCapabilities,
    ReadTextFileResponse,
)

from tests.fakes.model_server import FakeModelServer, text, tool  # noqa: E402


class LspClient:
    """A minimal JSON-RPC client over LSP framing; answers server requests with null."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._next = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
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
            if "method" in msg and "id" in msg:
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            elif "id" in msg and msg["id"] in self._pending:
                self._pending.pop(msg["id"]).set_result(msg.get("result", msg.get("error")))

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


class QuietClient:
    """An ACP client that reads files for the agent and ignores updates."""

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        return None

    async def read_text_file(self, session_id: str, path: str, **kw: Any) -> ReadTextFileResponse:
        return ReadTextFileResponse(content=Path(path).read_text())


def server_env(base_url: str, state: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INK_", "OPENAI_"))}
    env.update(
        INK_BASE_URL=base_url, INK_MODEL="bench", INK_STATE_DIR=str(state), PYTHONPATH=str(REPO)
    )
    return env


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as srv:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "README.md").write_text("# Bench\n\n" + "A line of the readme.\n" * 200)
        env = server_env(srv.base_url, Path(tmp) / "state")
        times: dict[str, list[float]] = {"acp": [], "acp+fs": [], "lsp": []}
        async with contextlib.AsyncExitStack() as stack:
            sessions = {}
            for name, fs in (("acp", False), ("acp+fs", True)):
                conn, _ = await stack.enter_async_context(
                    spawn_agent_process(
                        QuietClient(), sys.executable, "-m", "ink_ls", "--acp", env=env, cwd=ws
                    )
                )
                caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs))
                await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps)
                session = await conn.new_session(cwd=str(ws), mcp_servers=[])
                await conn.set_session_mode(session_id=session.session_id, mode_id="auto")
                sessions[name] = (conn, session.session_id)
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
                cwd=ws,
                env=env,
            )
            lsp = LspClient(proc)
            await lsp.request(
                "initialize",
                {
                    "processId": os.getpid(),
                    "rootUri": ws.as_uri(),
                    "capabilities": {},
                    "initializationOptions": {
                        "ink": {
                            "model": {"baseUrl": srv.base_url, "model": "bench"},
                            "approval": "auto",
                        }
                    },
                },
            )
            lsp.notify("initialized", {})
            lsp_session = None
            for _ in range(args.runs + 2):  # the first two warm up
                for name, (conn, sid) in sessions.items():
                    srv.push(tool("read", {"path": "README.md"}), text("ok"))
                    t0 = time.perf_counter()
                    result = await conn.prompt(
                        session_id=sid, prompt=[text_block("read README.md")]
                    )
                    times[name].append(time.perf_counter() - t0)
                    assert result.stop_reason == "end_turn", result
                srv.push(tool("read", {"path": "README.md"}), text("ok"))
                params: dict[str, Any] = {"prompt": "read README.md"}
                if lsp_session:
                    params["sessionId"] = lsp_session
                t0 = time.perf_counter()
                answer = await lsp.request("ink/session/prompt", params)
                times["lsp"].append(time.perf_counter() - t0)
                assert answer["stopReason"] == "end_turn", answer
                lsp_session = answer["sessionId"]
            await lsp.request("shutdown", None)
            lsp.notify("exit", None)
            await proc.wait()
    med = {k: statistics.median(v[2:]) * 1000 for k, v in times.items()}
    print(f"read turn round trip, median of {args.runs} (same scripted model, turns alternated):")
    print(f"  ACP  (ink-ls --acp, disk reads)           {med['acp']:7.1f} ms")
    print(f"  ACP  (reads via fs/read_text_file)        {med['acp+fs']:7.1f} ms")
    print(f"  LSP  (ink-ls --stdio, ink/session/prompt) {med['lsp']:7.1f} ms")
    print(
        f"  ratio ACP / LSP: {med['acp'] / med['lsp']:.2f}x; "
        f"ACP with client reads / LSP: {med['acp+fs'] / med['lsp']:.2f}x"
    )


if __name__ == "__main__":
    asyncio.run(main())

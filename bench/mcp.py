"""Benchmark of the MCP layer, run on demand: `.venv/bin/python bench/mcp.py`.

1. Start-up: wall time to start three real servers at session start (mcp-server-time,
   mcp-server-git, server-everything over stdio; `McpHub.start`, in parallel), against
   starting the same three one after the other, measured in this run (median of `--rounds`).
2. Per-call overhead: median time of one call through our whole path (the scheduler's batch:
   decode, jsonschema validation, gate, events, `McpTool.execute`, result conversion) against
   `ClientSession.call_tool` on the same connection (server-everything's `echo`, or the
   hostile test server's when node is missing), `--calls` each, interleaved.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, and this file (`mcp.py`) would
# hide the `mcp` SDK package: drop that folder before anything imports the SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from ink_ls.agent.scheduler import BatchEnv, run_batch  # noqa: E402
from ink_ls.core.messages import ToolCall  # noqa: E402
from ink_ls.core.tool import ToolRegistry  # noqa: E402
from ink_ls.mcp.config import parse_servers  # noqa: E402
from ink_ls.mcp.hub import McpHub  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EVERYTHING = REPO / "tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
PY = sys.executable


def _repo(root: Path) -> Path:
    git = ["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@example.com"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "a.txt").write_text("a\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a"], check=True)
    return root


def _servers(repo: Path) -> dict[str, Any]:
    servers: dict[str, Any] = {
        "time": {"command": PY, "args": ["-m", "mcp_server_time"]},
        "git": {"command": PY, "args": ["-m", "mcp_server_git", "--repository", str(repo)]},
    }
    node = shutil.which("node")
    if node and EVERYTHING.is_file():
        servers["everything"] = {"command": node, "args": [str(EVERYTHING), "stdio"]}
    else:
        servers["hostile"] = {
            "command": PY,
            "args": ["-m", "tests.fakes.mcp_hostile"],
            "cwd": str(REPO),
        }
    return servers


def _hub(servers: dict[str, Any], root: Path) -> McpHub:
    configs, _ = parse_servers(servers, "user", root=root)
    return McpHub(configs, start_timeout=60.0)


async def startup(servers: dict[str, Any], root: Path, rounds: int) -> None:
    parallel, serial = [], []
    for _ in range(rounds):
        hub = _hub(servers, root)
        began = time.perf_counter()
        await hub.start()
        parallel.append(time.perf_counter() - began)
        assert all(s.state == "connected" for s in hub.status()), hub.status()
        await hub.close()
        began = time.perf_counter()
        for name, entry in servers.items():
            one = _hub({name: entry}, root)
            await one.start()
            await one.close()
        serial.append(time.perf_counter() - began)
    p, s = statistics.median(parallel), statistics.median(serial)
    print(f"start-up of {len(servers)} servers ({', '.join(servers)}), median of {rounds}:")
    print(f"  in parallel (session start): {p * 1000:8.0f} ms")
    print(f"  one after the other:         {s * 1000:8.0f} ms   (ratio {p / s:.2f})")


async def overhead(servers: dict[str, Any], root: Path, calls: int) -> None:
    name = "everything" if "everything" in servers else "hostile"
    hub = _hub({name: servers[name]}, root)
    await hub.start()
    try:
        conn = hub.servers[name]
        session = conn._session  # the bench compares against the SDK on our own connection
        assert session is not None
        remote, key = ("echo", "message") if name == "everything" else ("echo", "text")
        env = BatchEnv(tools=ToolRegistry(sources=[hub]), cwd=root)
        ours, direct = [], []
        for i in range(calls + 20):
            began = time.perf_counter()
            await session.call_tool(remote, {key: f"hi {i}"})
            d = time.perf_counter() - began
            call = ToolCall(
                id=f"c{i}", name=f"mcp__{name}__{remote}", arguments=json.dumps({key: f"hi {i}"})
            )
            began = time.perf_counter()
            [result] = await run_batch([call], env)
            o = time.perf_counter() - began
            assert not result.is_error, result.content
            if i >= 20:  # warm-up left out
                ours.append(o)
                direct.append(d)
    finally:
        await hub.close()
    o, d = statistics.median(ours), statistics.median(direct)
    print(f"per call ({name} {remote}), median of {calls}:")
    print(f"  ClientSession.call_tool:     {d * 1e6:8.0f} µs")
    print(
        f"  through ink-ls (batch):      {o * 1e6:8.0f} µs   overhead {(o - d) * 1e6:.0f} µs "
        f"(ratio {o / d:.2f})"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        servers = _servers(_repo(root / "repo"))
        await startup(servers, root, args.rounds)
        await overhead(servers, root, args.calls)


if __name__ == "__main__":
    asyncio.run(main())

"""Burst benchmark, run on demand: `.venv/bin/python bench/burst.py [--sessions 1000]`.

N new sessions prompted at once through one `ink-ls --stdio` server with default settings,
against a model that answers every request after 1 s (`bench/burst_model.py`, a process of
its own). Prints: every prompt answered exactly once, the time from the first prompt sent to
the first and the last answer, the server's CPU seconds, its peak RSS and open files. The
baselines in the same run: the raw httpx client, N concurrent requests through the pools the
server uses (`ink_ls.model.pool`) and, with `--old`, through one default `httpx.AsyncClient`
(the old design: minutes of CPU); with `--h2`, one cleartext HTTP/2 connection (hypercorn);
with `--against DIR`, the same burst through the server of another checkout (e.g. main's);
with `--tls`, the server's burst again against an HTTPS endpoint (hypercorn, a certificate of a
throwaway CA that the server trusts through `SSL_CERT_FILE`), where ALPN picks HTTP/2 as with a
real provider; the model's count says which HTTP version each request came in.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.acp import LspClient, server_env  # noqa: E402
from ink_ls.model.pool import ShardedClient  # noqa: E402

BODY = {"model": "bench", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
TICK = os.sysconf("SC_CLK_TCK")
PROFILED = """import cProfile, runpy, sys, time
sys.argv[0] = "ink-ls"
profile = cProfile.Profile(time.process_time)  # CPU time: a loaded machine inflates wall time
profile.enable()
try:
    runpy.run_module("ink_ls", run_name="__main__")
finally:
    profile.disable()
    profile.dump_stats({path!r})
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Tls:
    """A certificate for 127.0.0.1 (`pem`: key and chain) and the CA that signed it."""

    pem: Path
    ca: Path

    @classmethod
    def make(cls, directory: Path) -> Tls:
        import trustme

        ca = trustme.CA()
        tls = cls(directory / "server.pem", directory / "ca.pem")
        ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(tls.pem))
        ca.cert_pem.write_to_path(str(tls.ca))
        return tls


@asynccontextmanager
async def model_server(
    delay: float, *, h2: bool = False, tls: Tls | None = None, dispatch: bool = False
) -> AsyncIterator[str]:
    """The slow model in a process of its own (`dispatch`: the scripted read call at once);
    yields its base URL."""
    port = free_port()
    args = [str(REPO / "bench" / "burst_model.py"), "--port", str(port), "--delay", str(delay)]
    args += ["--h2"] if h2 else []
    args += ["--tls", str(tls.pem)] if tls is not None else []
    args += ["--dispatch"] if dispatch else []
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *args, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    await asyncio.wait_for(proc.stdout.readline(), 30)
    try:
        yield f"{'http' if tls is None else 'https'}://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        await proc.wait()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mib(pid: int, key: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


Lease = Callable[[], AbstractAsyncContextManager[httpx.AsyncClient]]


async def raw_burst(label: str, url: str, n: int, lease: Lease) -> None:
    """N concurrent streamed requests through `lease`: first and last answer, CPU."""
    firsts: list[float] = []
    cpu, start = time.process_time(), time.perf_counter()

    async def one() -> int:
        async with lease() as http, http.stream("POST", url, json=BODY) as resp:
            async for _ in resp.aiter_bytes():
                pass
        firsts.append(time.perf_counter() - start)
        return resp.status_code

    codes = await asyncio.gather(*(one() for _ in range(n)), return_exceptions=True)
    ok = sum(1 for c in codes if c == 200)
    print(
        f"  {label:44} {ok:5d} ok  first {min(firsts, default=0):5.2f} s  "
        f"all {time.perf_counter() - start:6.2f} s  CPU {time.process_time() - cpu:6.2f} s"
    )


def single(client: httpx.AsyncClient) -> Lease:
    @asynccontextmanager
    async def lease() -> AsyncIterator[httpx.AsyncClient]:
        yield client

    return lease


async def baselines(n: int, delay: float, old: bool, h2: bool) -> None:
    print(f"baseline: the raw httpx client, {n} concurrent requests, model answers in {delay} s")
    async with model_server(delay) as base:
        url = base + "/chat/completions"
        pools = ShardedClient(httpx.Timeout(600.0))
        await raw_burst("HTTP/1.1, small pools (ink_ls.model.pool)", url, n, pools.lease)
        await pools.aclose()
        if old:
            client = httpx.AsyncClient(timeout=600.0)
            await raw_burst("HTTP/1.1, one default AsyncClient (old)", url, n, single(client))
            await client.aclose()
    if h2:
        async with model_server(delay, h2=True) as base:
            url = base + "/chat/completions"
            limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
            client = httpx.AsyncClient(timeout=600.0, http1=False, http2=True, limits=limits)
            await raw_burst("HTTP/2 (h2c, hypercorn), one AsyncClient", url, n, single(client))
            await client.aclose()
            pools = ShardedClient(httpx.Timeout(600.0))
            await raw_burst("HTTP/1.1 (hypercorn), small pools", url, n, pools.lease)
            await pools.aclose()


async def server_burst(
    n: int,
    delay: float,
    env_extra: dict[str, str],
    profile: str | None = None,
    checkout: Path = REPO,
    tls: Tls | None = None,
) -> None:
    async with model_server(delay, tls=tls) as base:
        with tempfile.TemporaryDirectory() as tmp:
            ws = Path(tmp) / "ws"
            ws.mkdir()
            env = server_env(base, Path(tmp) / "state") | env_extra | {"PYTHONPATH": str(checkout)}
            if tls is not None:
                env["SSL_CERT_FILE"] = str(tls.ca)
            run = ("-m", "ink_ls") if profile is None else ("-c", PROFILED.format(path=profile))
            python = checkout / ".venv" / "bin" / "python"
            proc = await asyncio.create_subprocess_exec(
                str(python) if python.exists() else sys.executable,
                *run,
                *("--stdio", "--log-level", "warning"),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                cwd=ws,
                env=env,
            )
            lsp = LspClient(proc)
            options = {"model": {"model": "bench", "contextWindow": 32_768}, "approval": "auto"}
            init = {"processId": os.getpid(), "rootUri": ws.as_uri(), "capabilities": {}}
            await lsp.request("initialize", init | {"initializationOptions": {"ink": options}})
            lsp.notify("initialized", {})
            await measure(lsp, proc.pid, n, base, checkout, tls)
            await lsp.request("shutdown", None)
            lsp.notify("exit", None)
            await proc.wait()


async def measure(
    lsp: LspClient, pid: int, n: int, base: str, checkout: Path, tls: Tls | None
) -> None:
    cpu0, fds0, rss0 = cpu_seconds(pid), open_files(pid), rss_mib(pid)
    peak_fds = fds0
    times: list[float] = []
    start = time.perf_counter()

    async def prompt(i: int) -> dict[str, Any]:
        answer: dict[str, Any] = await lsp.request("ink/session/prompt", {"prompt": f"hi {i}"})
        times.append(time.perf_counter() - start)
        return answer

    tasks = [asyncio.ensure_future(prompt(i)) for i in range(n)]
    while not all(t.done() for t in tasks):
        peak_fds = max(peak_fds, open_files(pid))
        await asyncio.wait(tasks, timeout=0.1)
    answers = [t.result() for t in tasks]
    cpu = cpu_seconds(pid) - cpu0
    async with httpx.AsyncClient(verify=str(tls.ca) if tls else True) as http:
        count = (await http.get(base + "/count")).json()
    answered = count["answered"]
    ended = sum(1 for a in answers if a.get("stopReason") == "end_turn")
    sessions = len({a.get("sessionId") for a in answers})
    once = ended == n and sessions == n and answered == n
    where = "" if checkout == REPO else f" (the server of {checkout})"
    if tls is not None:
        versions = ", ".join(f"HTTP/{v}: {k}" for v, k in count["versions"].items())
        where += f" against HTTPS ({versions})"
    print(f"ink-ls --stdio{where}, {n} new sessions prompted at once, default settings:")
    print(
        f"  answered: {ended} of {n} end_turn, {sessions} distinct sessions, "
        f"{answered} model requests -> {'every prompt exactly once' if once else 'MISMATCH'}"
    )
    print(f"  first answer {min(times):5.2f} s   (target <= 1.5 s)")
    print(f"  all done     {max(times):5.2f} s   (target <= 3 s, from the first prompt sent)")
    print(f"  server CPU   {cpu:5.2f} s   (target < 8 s)")
    print(
        f"  server RSS   {rss0:.0f} MiB before, {rss_mib(pid):.0f} MiB after, "
        f"{rss_mib(pid, 'VmHWM'):.0f} MiB peak"
    )
    print(f"  open files   {fds0} before, {peak_fds} peak, {open_files(pid)} after")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--old", action="store_true", help="also the old single pool (slow)")
    parser.add_argument("--h2", action="store_true", help="also HTTP/2 against hypercorn")
    parser.add_argument(
        "--tls", action="store_true", help="also the server's burst against an HTTPS endpoint"
    )
    parser.add_argument("--limit", type=int, default=None, help="maxConcurrentRequests")
    parser.add_argument("--profile", help="write the server's cProfile here")
    parser.add_argument("--no-baseline", action="store_true", help="the server's burst only")
    parser.add_argument(
        "--against", type=Path, help="also the burst through the server of this checkout"
    )
    opts = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.1f}")
    if not opts.no_baseline:
        await baselines(opts.sessions, opts.delay, opts.old, opts.h2)
    extra = {"INK_MAX_CONCURRENT_REQUESTS": str(opts.limit)} if opts.limit else {}
    await server_burst(opts.sessions, opts.delay, extra, opts.profile)
    if opts.tls:
        with tempfile.TemporaryDirectory() as tmp:
            tls = Tls.make(Path(tmp))
            await server_burst(opts.sessions, opts.delay, extra, tls=tls)
    if opts.against is not None:
        await server_burst(opts.sessions, opts.delay, extra, checkout=opts.against.resolve())


if __name__ == "__main__":
    asyncio.run(main())

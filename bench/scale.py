"""Long-session benchmark, run on demand: `.venv/bin/python bench/scale.py [--turns 500 2000]
[--profile FILE]`.

One `ink-ls --stdio` server, a scripted loopback model (each turn: a `read` call, then an
answer) and one session of N turns. Near its end a fresh session runs alongside, its turns
alternating with the long one's, so machine load hits both alike. Our own time per turn is the
prompt's round trip minus the time the model server spent on the turn's requests (reading and
parsing the body, answering). Prints, per session length N, medians of turns 5-15 and N-10..N
of the long session, of turns 5-15 of the fresh one and the ratio; the same as means of the
server's CPU time (steadier on a loaded machine); our own time at every tenth of the session;
the size of the last request. `--profile FILE` runs the server under cProfile and writes the
top of its summary (cumulative and own time) to FILE, the raw profile beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.acp import LspClient, server_env  # noqa: E402
from tests.fakes.model_server import FakeModelServer, Reply, text, tool  # noqa: E402


class TimedModel:
    """The scripted model, timing its own work per request."""

    def __init__(self, srv: FakeModelServer) -> None:
        self.lock = threading.Lock()
        self.seconds: list[float] = []
        self.sizes: list[int] = []
        self.srv = srv
        srv.default = self.answer
        base = srv._httpd.RequestHandlerClass
        model = self

        class Timed(base):  # type: ignore[valid-type,misc]
            def do_POST(self) -> None:
                start = time.perf_counter()
                super().do_POST()
                with model.lock:
                    model.seconds.append(time.perf_counter() - start)
                    model.sizes.append(int(self.headers.get("Content-Length") or 0))

        srv._httpd.RequestHandlerClass = Timed

    @staticmethod
    def answer(payload: dict[str, Any]) -> Reply:
        last = payload["messages"][-1]
        return text("ok") if last["role"] == "tool" else tool("read", {"path": "README.md"})

    def spent(self, since: int) -> float:
        with self.lock:
            return sum(self.seconds[since:])

    def count(self) -> int:
        with self.lock:
            return len(self.seconds)


class Session:
    """One session's turns through `ink/session/prompt`, with our own time per turn."""

    def __init__(self, lsp: LspClient, model: TimedModel) -> None:
        self.lsp, self.model = lsp, model
        self.id: str | None = None
        self.ours: list[float] = []
        self.last_size = 0
        """Bytes of the last model request of the last turn."""
        self.cpu: list[float] = []
        """The server process's CPU seconds per turn (10 ms ticks: read as sums)."""

    async def turn(self) -> None:
        params: dict[str, Any] = {"prompt": "read README.md"}
        if self.id:
            params["sessionId"] = self.id
        mark = self.model.count()
        cpu = cpu_seconds(self.lsp.proc.pid)
        start = time.perf_counter()
        answer = await self.lsp.request("ink/session/prompt", params)
        wall = time.perf_counter() - start
        self.cpu.append(cpu_seconds(self.lsp.proc.pid) - cpu)
        assert answer["stopReason"] == "end_turn", answer
        self.id = answer["sessionId"]
        self.ours.append(wall - self.model.spent(mark))
        self.last_size = self.model.sizes[-1]
        # the fake keeps every parsed body: thousands of big ones make this process's garbage
        # collections (and so the measured round trips) grow with the session, not the server
        self.model.srv.requests.clear()


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def mean_ms(values: list[float]) -> float:
    return sum(values) / max(len(values), 1) * 1000.0


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000.0


async def run(n: int, profile: Path | None) -> None:
    """One server, one long session of `n` turns and a fresh one alongside at its end."""
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as srv:
        model = TimedModel(srv)
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "README.md").write_text("# Bench\n\n" + "A line of the readme.\n" * 20)
        stats = Path(tmp) / "server.prof"
        runner = ["-m", "cProfile", "-o", str(stats)] if profile is not None else []
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *runner,
            "-m",
            "ink_ls",
            "--stdio",
            "--log-level",
            "warning",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=ws,
            env=server_env(srv.base_url, Path(tmp) / "state"),
        )
        lsp = LspClient(proc)
        options = {"model": {"model": "bench", "contextWindow": 8_000_000}, "approval": "auto"}
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
        long, fresh = Session(lsp, model), Session(lsp, model)
        started = time.perf_counter()
        for i in range(n):
            await long.turn()
            if i >= n - 16:  # the fresh session's 16 turns alternate with the long one's last
                await fresh.turn()
        total = time.perf_counter() - started
        await lsp.request("shutdown", None)
        lsp.notify("exit", None)
        await proc.wait()
        if profile is not None:
            write_profile(stats, profile, n)
    report(n, long, fresh, total)


def report(n: int, long: Session, fresh: Session, total: float) -> None:
    """The medians, the ratio and the growth over the session."""
    early, late, alongside = long.ours[4:15], long.ours[n - 11 :], fresh.ours[4:15]
    print(f"{n}-turn session (a read call and an answer per turn), our own time per turn:")
    print(f"  long session, turns 5-15            {median_ms(early):7.1f} ms")
    print(f"  fresh session alongside, turns 5-15 {median_ms(alongside):7.1f} ms   1.00x")
    label = f"long session, turns {n - 10}-{n}"
    ratio = statistics.median(late) / statistics.median(alongside)
    print(f"  {label:35} {median_ms(late):7.1f} ms   {ratio:.2f}x (target <= 1.5x)")
    cpu_early, cpu_late = long.cpu[4:15], long.cpu[n - 11 :]
    cpu_fresh = fresh.cpu[4:15]
    print("  the server's CPU per turn (mean; steadier than wall time on a loaded machine):")
    print(f"  long session, turns 5-15            {mean_ms(cpu_early):7.1f} ms")
    print(f"  fresh session alongside, turns 5-15 {mean_ms(cpu_fresh):7.1f} ms   1.00x")
    cpu_ratio = mean_ms(cpu_late) / max(mean_ms(cpu_fresh), 1e-9)
    print(f"  {label:35} {mean_ms(cpu_late):7.1f} ms   {cpu_ratio:.2f}x")
    tenth = max(n // 10, 1)
    steps = [
        f"{end}: {median_ms(long.ours[max(end - 11, 0) : end]):.1f}"
        for end in range(tenth, n + 1, tenth)
    ]
    print("  median ms of the 11 turns up to turn  " + ", ".join(steps))
    print(
        f"  long session's last request body {long.last_size / 1024:.0f} KiB; total {total:.0f} s"
    )


def write_profile(stats: Path, out: Path, n: int) -> None:
    """The top of the server's profile, by cumulative and by own time, into `out`."""
    text = io.StringIO()
    data = pstats.Stats(str(stats), stream=text)
    data.strip_dirs()
    text.write(f"# ink-ls --stdio over a {n}-turn session (bench/scale.py)\n")
    data.sort_stats("cumulative").print_stats(45)
    data.sort_stats("tottime").print_stats(35)
    out.write_text(text.getvalue())
    shutil.copy(stats, out.with_suffix(".prof"))  # the raw profile, for pstats or snakeviz
    print(f"profile summary written to {out} (raw: {out.with_suffix('.prof')})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--turns", type=int, nargs="+", default=[500], help="session lengths, e.g. 500 2000"
    )
    parser.add_argument("--profile", type=Path, help="write a cProfile summary to this file")
    opts = parser.parse_args()
    for n in opts.turns:
        await run(n, opts.profile)


if __name__ == "__main__":
    asyncio.run(main())

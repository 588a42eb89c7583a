"""Benchmarks of the read, bash and grep tools and of bash cancellation, run on demand.

`.venv/bin/python bench/tools.py [cancel|grep|seq|bash|read …]` — each figure is printed beside
a baseline measured in the same run, as a ratio. Time- and memory-sensitive parts run in fresh
worker processes (peak RSS reset just before the operation). Big files live in a temp dir that
is deleted at the end.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ink_ls.core.signal import NEVER, CancelController  # noqa: E402
from ink_ls.core.tool import ToolContext  # noqa: E402
from ink_ls.tools import _process, _procfs  # noqa: E402
from ink_ls.tools.bash import BashParams, BashTool  # noqa: E402

MiB = 1 << 20
READ_LINE = b"ink bench read line 012\n"  # 24 bytes: 2000 lines fit in the 50 KB cap
READ_LINES = 62_500_000  # 1.5 GB
BASH_BYTES = 1 << 30
BASH_COMMAND = (
    f"yes 'ink bench line: the quick brown fox jumps over the lazy dog' | head -c {BASH_BYTES}"
)
RUNS = 3


# -- workers (a fresh process per measurement) ----------------------------------------------


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(field)


def _measure(op: object) -> None:
    """Run `op()`, print {"s": seconds, "rss_mib": peak RSS growth, "check": op's result}."""
    assert callable(op)
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak-RSS mark (VmHWM)
    before = _status_kib("VmRSS")
    start = time.perf_counter()
    check = op()
    seconds = time.perf_counter() - start
    growth = (_status_kib("VmHWM") - before) / 1024
    print(json.dumps({"s": seconds, "rss_mib": growth, "check": check}))


def _count_lines(path: str) -> int:
    n = 0
    with open(path, "rb", buffering=0) as fh:
        while chunk := fh.read(MiB):
            n += chunk.count(b"\n")
    return n


def _read_tool(path: str) -> str:
    from ink_ls.tools.read import ReadParams, ReadTool

    args = ReadParams(path=path, offset=10_000_000, limit=2000)
    ctx = ToolContext("bench", Path(path).parent)
    result = asyncio.run(ReadTool().execute(args, NEVER, ctx))
    assert not result.is_error, result.output[:300]
    return result.output.splitlines()[-1]


def _drain(pipe_size: int | None, *, keep: bool = True) -> int:
    proc = subprocess.Popen(["/bin/bash", "-c", BASH_COMMAND], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    if pipe_size:
        import fcntl

        fcntl.fcntl(fd, 1031, pipe_size)  # F_SETPIPE_SZ
    total = 0
    with tempfile.TemporaryFile() as log:
        while chunk := os.read(fd, MiB):
            if keep:
                log.write(chunk)
            total += len(chunk)
    proc.stdout.close()
    proc.wait()
    return total


def _bash_tool(log_dir: str) -> str:
    tool = BashTool(log_dir=log_dir)
    ctx = ToolContext("bench", Path(log_dir))
    result = asyncio.run(tool.execute(BashParams(command=BASH_COMMAND), NEVER, ctx))
    assert not result.is_error, result.output[-300:]
    for path in Path(log_dir).glob("ink-output-*.log"):
        path.unlink()
    return result.output.splitlines()[-1][:80]


def worker(kind: str, arg: str) -> None:
    ops = {
        "read-baseline": lambda: _count_lines(arg),
        "read-tool": lambda: _read_tool(arg),
        "bash-baseline": lambda: _drain(None),
        "bash-baseline-1m-pipe": lambda: _drain(MiB),
        "bash-floor": lambda: _drain(MiB, keep=False),
        "bash-tool": lambda: _bash_tool(arg),
    }
    _measure(ops[kind])


def run_worker(kind: str, arg: str = "") -> dict[str, float | str]:
    out = subprocess.run(
        [sys.executable, __file__, "--worker", kind, arg],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float | str] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def compare(name: str, kinds: list[tuple[str, str]], arg: str, target: str) -> None:
    """Interleave runs of each kind; print medians, ratios to the first kind and peak RSS."""
    samples: dict[str, list[dict[str, float | str]]] = {k: [] for k, _ in kinds}
    for _ in range(RUNS):
        for kind, _label in kinds:
            samples[kind].append(run_worker(kind, arg))
    base = statistics.median(float(s["s"]) for s in samples[kinds[0][0]])
    print(f"\n== {name} (median of {RUNS}; target {target})")
    for kind, label in kinds:
        secs = statistics.median(float(s["s"]) for s in samples[kind])
        rss = max(float(s["rss_mib"]) for s in samples[kind])
        print(f"  {label:<44} {secs * 1000:9.1f} ms  x{secs / base:5.2f}  peak RSS +{rss:6.1f} MiB")
    print(f"  check: {samples[kinds[-1][0]][-1]['check']}")


# -- the benchmarks -------------------------------------------------------------------------


def bench_read(tmp: Path) -> None:
    path = tmp / "big.txt"
    block = READ_LINE * 10_000
    with open(path, "wb") as fh:
        for _ in range(READ_LINES // 10_000):
            fh.write(block)
    print(f"\nread: {path.stat().st_size / 1e9:.2f} GB, {READ_LINES} lines")
    _count_lines(str(path))  # warm the page cache for both sides
    compare(
        "read 2000 lines at line 10,000,000",
        [("read-baseline", "chunked bytes.count over the file"), ("read-tool", "ReadTool")],
        str(path),
        "<= 3x, peak RSS growth < 32 MiB",
    )
    path.unlink()


def bench_bash(tmp: Path) -> None:
    compare(
        "bash: a command writing 1 GiB",
        [
            ("bash-baseline", "drain 1 MiB reads to a log file"),
            ("bash-baseline-1m-pipe", "same, pipe enlarged to 1 MiB (as ours)"),
            ("bash-floor", "floor: 1 MiB pipe, reads discarded, no log"),
            ("bash-tool", "BashTool"),
        ],
        str(tmp),
        "<= 1.2x, peak RSS growth < 32 MiB",
    )


SEQ_COMMAND = "seq 1 200000"
SEQ_ROUNDS = 21
IDLE_PROCESSES = 1500
PR_SET_CHILD_SUBREAPER = 36


def _start_idle(count: int) -> int:
    """`count` sleeping processes outside our tree, as a busy machine has; returns their
    process group for `os.killpg`. Their shell exits, and while it does we are not a child
    subreaper, so they are re-parented away from us (as other people's processes are)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    try:
        shell = subprocess.Popen(
            ["/bin/bash", "-c", f"for i in $(seq {count}); do sleep 600 & done"],
            start_new_session=True,
            stdout=subprocess.DEVNULL,
        )
        shell.wait()
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, int(_procfs.subreaper_enabled()), 0, 0, 0)
    return shell.pid


def _seq_rounds(tool: BashTool, ctx: ToolContext) -> tuple[float, float]:
    """Medians of `SEQ_ROUNDS` interleaved rounds: the floor and the tool."""

    def floor() -> float:
        start = time.perf_counter()
        done = subprocess.run(["/bin/bash", "-c", SEQ_COMMAND], capture_output=True, check=True)
        assert len(done.stdout) == 1_288_895
        return time.perf_counter() - start

    async def ours() -> float:
        start = time.perf_counter()
        result = await tool.execute(BashParams(command=SEQ_COMMAND), NEVER, ctx)
        took = time.perf_counter() - start
        assert not result.is_error and "lines 199501-200000 of 200000" in result.output
        return took

    async def rounds() -> tuple[list[float], list[float]]:
        floor(), await ours()  # warm-up
        floors, tools = [], []
        for _ in range(SEQ_ROUNDS):
            floors.append(floor())
            tools.append(await ours())
        return floors, tools

    floors, tools = asyncio.run(rounds())
    return statistics.median(floors), statistics.median(tools)


def bench_seq(tmp: Path) -> None:
    """`seq 1 200000` through BashTool against `subprocess` + read, interleaved in-process,
    on the machine as it is and again with `IDLE_PROCESSES` more processes running."""
    tool = BashTool(log_dir=str(tmp))
    ctx = ToolContext("bench", tmp)
    print(f"\n== bash: {SEQ_COMMAND} (median of {SEQ_ROUNDS} interleaved; target <= 1.5x)")
    for idle in (0, IDLE_PROCESSES):
        group = _start_idle(idle) if idle else None
        try:
            procs = sum(name.isdigit() for name in os.listdir("/proc"))
            base, mine = _seq_rounds(tool, ctx)
        finally:
            if group is not None:
                os.killpg(group, signal.SIGKILL)
        print(f"  with {procs} processes on the machine (+{idle} idle)")
        print(f"    {'floor: subprocess.run + read':<42} {base * 1000:9.1f} ms  x 1.00")
        print(f"    {'BashTool':<42} {mine * 1000:9.1f} ms  x{mine / base:5.2f}")


def bench_grep(tmp: Path) -> None:
    from ink_ls.tools._rg import find_rg
    from ink_ls.tools.grep import BASE_FLAGS, GrepParams, GrepTool

    root = tmp / "tree"
    filler = "".join(f"line {i}: nothing to see here, just text\n" for i in range(20))
    files = 0
    for d in range(300):
        sub = root / f"pkg{d:03d}" / "src"
        sub.mkdir(parents=True)
        for f in range(100):
            extra = "the needle_token is here\n" if (d * 100 + f) % 500 == 0 else ""
            (sub / f"mod{f:03d}.py").write_text(filler + extra)
            files += 1
    rg = find_rg()
    flags = [*BASE_FLAGS, "--", "needle_token", "."]
    tool, ctx = GrepTool(), ToolContext("bench", root)
    params = GrepParams(pattern="needle_token")

    async def tool_runs(n: int) -> list[float]:
        times = []
        for _ in range(n):
            start = time.perf_counter()
            result = await tool.execute(params, NEVER, ctx)
            times.append(time.perf_counter() - start)
            assert not result.is_error and result.output.count("needle_token") == 60
        return times

    def rg_runs(n: int) -> list[float]:
        times = []
        for _ in range(n):
            start = time.perf_counter()
            subprocess.run([rg, *flags], cwd=root, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
        return times

    rg_runs(2)
    rg_t, tool_t = [], []
    for _ in range(5):  # interleaved
        rg_t += rg_runs(2)
        tool_t += asyncio.run(tool_runs(2))
    base, ours = statistics.median(rg_t), statistics.median(tool_t)
    print(f"\n== grep over {files} files (median of {len(rg_t)}; target <= rg + 10 ms)")
    print(f"  {'rg directly, same flags':<44} {base * 1000:9.1f} ms")
    print(f"  {'GrepTool':<44} {ours * 1000:9.1f} ms  (+{(ours - base) * 1000:.1f} ms)")
    shutil.rmtree(root)


def _watch_dead(pids: list[int], out: list[float]) -> threading.Thread:
    """A thread blocked in poll() on pidfds; appends the time all of `pids` have ended."""
    fds = [os.pidfd_open(pid) for pid in pids]

    def wait() -> None:
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        pending = set(fds)
        while pending:
            for fd, _ in poller.poll(5000):
                pending.discard(fd)
                poller.unregister(fd)
        out.append(time.perf_counter())
        for fd in fds:
            os.close(fd)

    thread = threading.Thread(target=wait)
    thread.start()
    return thread


async def _cancel_once(tmp: Path, first: str) -> tuple[float, float]:
    pids_file = tmp / "pids"
    pids_file.unlink(missing_ok=True)
    command = f"{first} 1000 & echo $! >> pids; sleep 1000 & echo $! >> pids; wait"
    controller = CancelController()
    task = asyncio.create_task(
        BashTool(log_dir=str(tmp)).execute(
            BashParams(command=command), controller.signal, ToolContext("bench", tmp)
        )
    )
    while not (pids_file.exists() and len(pids_file.read_text().split()) == 2):
        await asyncio.sleep(0.002)
    pids = [int(p) for p in pids_file.read_text().split()]
    dead: list[float] = []
    watcher = _watch_dead(pids, dead)
    start = time.perf_counter()
    controller.cancel("bench")
    result = await task
    got_result = time.perf_counter()
    watcher.join(10)
    assert result.output.startswith("Error: command aborted by user"), result.output
    assert dead, "processes still running after cancel"
    return got_result - start, dead[0] - start


def bench_cancel(tmp: Path) -> None:
    for label, first in (
        ("sleep 1000 & sleep 1000 & wait", "sleep"),
        ("with a setsid escapee", "setsid sleep"),
    ):
        runs = [asyncio.run(_cancel_once(tmp, first)) for _ in range(21)]
        to_result = statistics.median(r[0] for r in runs) * 1000
        to_dead = statistics.median(r[1] for r in runs) * 1000
        worst = max(max(r) for r in runs) * 1000
        print(f"\n== cancel: {label} (median of {len(runs)}; target < 10 ms, cap 2 s)")
        print(
            f"  cancel -> result {to_result:6.2f} ms   cancel -> all dead {to_dead:6.2f} ms"
            f"   (worst of both {worst:.1f} ms)"
        )
    _process.kill_all_tracked()


def main(only: list[str]) -> None:
    """Run the benchmarks named in `only` (all when empty): cancel, grep, seq, bash, read."""
    benches = {
        "cancel": bench_cancel,
        "grep": bench_grep,
        "seq": bench_seq,
        "bash": bench_bash,
        "read": bench_read,
    }
    tmp = Path(tempfile.mkdtemp(prefix="ink-bench-"))
    started = time.monotonic()
    try:
        for name, bench in benches.items():
            if not only or name in only:
                bench(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        _process.kill_all_tracked()
    print(f"\n(total {time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
    else:
        main(sys.argv[1:])

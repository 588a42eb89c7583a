"""Benchmarks of the file tools, run on demand: `.venv/bin/python bench/file_tools.py`.

1. read: 2,000 lines at line 10,000,000 of a ~1.5 GB file, against a plain Python loop that
   counts the newlines of the whole file in 1 MiB chunks (`bytes.count`), measured in this run
   (target ≤ 3×), and the peak RSS growth over the read (< 32 MiB), high-water mark reset first.
2. grep: a search over a tree of tens of thousands of files, against running `rg` directly with
   the same flags (target ≤ rg + 10 ms). find is measured the same way. A glob costs more
   than rg's own `--glob`, which lets ignored files back in: a name glob (`*.py`) becomes a
   file type, so ignore rules are checked for every file (like a search without a glob); a
   glob with a `/` adds a second `rg --files` walk (target ≤ 3× rg with `--glob`).
Files are generated under --dir (default: a temp dir, removed afterwards unless --keep).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from ink_ls.core.signal import NEVER
from ink_ls.core.tool import ToolContext
from ink_ls.tools._rg import find_rg
from ink_ls.tools.find import BASE_FLAGS as FIND_FLAGS
from ink_ls.tools.find import FindParams, FindTool
from ink_ls.tools.grep import BASE_FLAGS as GREP_FLAGS
from ink_ls.tools.grep import GrepParams, GrepTool
from ink_ls.tools.read import ReadParams, ReadTool

LINE = b"a line of some text 0123\n"  # 25 bytes: 2,000 lines fit in 50 KB
OFFSET = 10_000_001


def make_big(path: Path, size: int) -> None:
    if path.exists() and path.stat().st_size == size:
        return
    block = LINE * ((1 << 20) // len(LINE))
    with open(path, "wb") as fh:
        left = size
        while left > 0:
            fh.write(block[:left])
            left -= len(block)


def baseline_count(path: Path) -> int:
    n = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            n += chunk.count(b"\n")
    return n


def tool_read(path: Path) -> str:
    args = ReadParams(path=str(path), offset=OFFSET, limit=2000)
    result = asyncio.run(ReadTool().execute(args, NEVER, ToolContext("b", path.parent)))
    return result.output


def median_time(fn: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def rss_growth_kib(fn_name: str, path: Path) -> int:
    """Peak RSS growth (KiB) of this process over one call: the kernel's high-water mark is
    reset first (`/proc/self/clear_refs`), then compared with the RSS at the start."""
    fn = tool_read if fn_name == "read" else baseline_count
    Path("/proc/self/clear_refs").write_text("5")
    before = _status_kib("VmRSS")
    fn(path)
    return _status_kib("VmHWM") - before


def _status_kib(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def bench_read(root: Path, size: int, runs: int) -> None:
    big = root / "big.txt"
    print(f"read: generating {size / 1e9:.2f} GB ...", flush=True)
    make_big(big, size)
    baseline_count(big)  # warm the page cache for both sides
    out = tool_read(big)
    assert out.endswith("Use offset=10002001 to continue.]"), out[-200:]
    # Alternate the two so that load from other processes hits both alike.
    base_t, ours_t = [], []
    for _ in range(runs):
        base_t.append(median_time(lambda: baseline_count(big), 1))
        ours_t.append(median_time(lambda: tool_read(big), 1))
    base, ours = statistics.median(base_t), statistics.median(ours_t)
    rss = rss_growth_kib("read", big)
    rss_base = rss_growth_kib("count", big)
    print(
        f"read 2,000 lines at line 10,000,001 of {size / 1e9:.2f} GB: {ours * 1000:.0f} ms vs "
        f"chunked newline count {base * 1000:.0f} ms -> {ours / base:.2f}x (target <= 3x); "
        f"peak RSS growth {rss / 1024:.1f} MiB (baseline loop {rss_base / 1024:.1f} MiB, "
        "target < 32 MiB)"
    )


def make_tree(root: Path, files: int) -> None:
    marker = root / ".made"
    if marker.exists() and marker.read_text() == str(files):
        return
    text = "".join(f"def function_{i}(x):\n    return x * {i}\n\n" for i in range(40))
    for i in range(files):
        d = root / f"pkg{i // 200:03d}"
        d.mkdir(exist_ok=True)
        extra = "# needle here\n" if i % 400 == 0 else ""
        (d / f"mod{i:05d}.py").write_text(text + extra)
    (root / ".gitignore").write_text("pkg000/\n")
    marker.write_text(str(files))


def bench_search(root: Path, files: int, runs: int) -> None:
    tree = root / "tree"
    tree.mkdir(exist_ok=True)
    print(f"grep/find: generating {files} files ...", flush=True)
    make_tree(tree, files)
    rg = find_rg()
    ctx = ToolContext("b", tree)

    def rg_direct(flags: list[str]) -> None:
        subprocess.run([rg, *flags], cwd=tree, capture_output=True, check=False)

    async def paired(call: object, flags: list[str], runs: int) -> tuple[float, float, float]:
        # One event loop for all runs, as in the server; baseline and tool alternate so that
        # load from other processes hits both alike. Returns medians and the median difference.
        await call()  # type: ignore[operator]
        rg_direct(flags)
        base, ours = [], []
        for i in range(runs):
            for which in (0, 1) if i % 2 else (1, 0):
                t = time.perf_counter()
                if which:
                    await call()  # type: ignore[operator]
                else:
                    rg_direct(flags)
                (ours if which else base).append(time.perf_counter() - t)
        diffs = [o - b for o, b in zip(ours, base, strict=True)]
        return statistics.median(base), statistics.median(ours), statistics.median(diffs)

    def grep_tool() -> object:
        return GrepTool().execute(GrepParams(pattern="needle"), NEVER, ctx)

    def find_tool() -> object:
        return FindTool().execute(FindParams(pattern="*.py"), NEVER, ctx)

    def find_path_glob() -> object:
        return FindTool().execute(FindParams(pattern="pkg0*/*.py"), NEVER, ctx)

    def grep_path_glob() -> object:
        return GrepTool().execute(GrepParams(pattern="needle", glob="pkg0*/*.py"), NEVER, ctx)

    grep_flags = [*GREP_FLAGS, "--", "needle", "."]
    find_flags = [*FIND_FLAGS, "--glob", "*.py", "--", "."]
    path_glob = ["--glob", "pkg0*/*.py", "--"]
    for name, call, flags in (
        ("grep", grep_tool, grep_flags),
        ("find", find_tool, find_flags),
        ("find pkg0*/*.py", find_path_glob, [*FIND_FLAGS, *path_glob, "."]),
        ("grep --glob pkg0*/*.py", grep_path_glob, [*GREP_FLAGS, *path_glob, "needle", "."]),
    ):
        base, ours, diff = asyncio.run(paired(call, flags, runs))
        print(
            f"{name} over {files} files: tool {ours * 1000:.1f} ms vs rg directly "
            f"{base * 1000:.1f} ms ({ours / base:.2f}x); median paired difference "
            f"{diff * 1000:+.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--size", type=float, default=1.5, help="GB for the read benchmark")
    parser.add_argument("--files", type=int, default=30_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=["read", "search"], default=None)
    opts = parser.parse_args()
    root = opts.dir or Path(tempfile.mkdtemp(prefix="ink-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        if opts.only in (None, "read"):
            bench_read(root, int(opts.size * 1e9), opts.runs)
        if opts.only in (None, "search"):
            bench_search(root, opts.files, opts.runs)
    finally:
        if opts.dir is None and not opts.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

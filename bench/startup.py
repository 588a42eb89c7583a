"""Start-up benchmark, run on demand: `.venv/bin/python bench/startup.py [--rounds 11]`.

Five timings per round, interleaved so machine load hits all alike (bytecode warm): the
floors `python -c pass`, `python -c "import pygls.lsp.server"` and `python -c "import
pydantic, httpx, rich.console"` (the libraries `ink-ls run` cannot do without), then
`python -m ink_ls --stdio` from spawn to the `initialize` answer, and `ink-ls run` against an
instant loopback model from spawn to exit. Prints medians, the ratios to the floors, and the
slowest imports of both paths (`python -X importtime`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fakes.model_server import FakeModelServer, text  # noqa: E402


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


INITIALIZE = frame(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"processId": None, "rootUri": None, "capabilities": {}},
    }
)
GOODBYE = frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) + frame(
    {"jsonrpc": "2.0", "method": "exit"}
)


FLOORS = {
    "pass": "pass",
    "bare": "import pygls.lsp.server",
    "libs": "import pydantic, httpx, rich.console",
}
"""The baselines: an interpreter doing nothing, pygls' server, the run path's libraries."""


def bare(python: str, code: str = FLOORS["bare"]) -> float:
    """Seconds for a bare interpreter to run `code` (an import) and exit."""
    start = time.perf_counter()
    subprocess.run([python, "-c", code], check=True)
    return time.perf_counter() - start


def initialize(python: str, env: dict[str, str], *flags: str) -> tuple[float, str]:
    """Seconds from spawn to the `initialize` answer, and the server's stderr."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [python, *flags, "-m", "ink_ls", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INITIALIZE)
    proc.stdin.flush()
    header = b""
    while not header.endswith(b"\r\n\r\n"):
        header += proc.stdout.read(1)
    proc.stdout.read(int(header.split(b":")[1].split(b"\r")[0]))
    took = time.perf_counter() - start
    _, err = proc.communicate(GOODBYE, timeout=30)
    return took, err.decode()


def run(python: str, env: dict[str, str], cwd: str, *flags: str) -> tuple[float, str]:
    """Seconds for `ink-ls run` to answer one prompt (instant model) and exit; its stderr."""
    start = time.perf_counter()
    done = subprocess.run(
        [python, *flags, "-m", "ink_ls", "run", "--cwd", cwd, "hello"],
        check=True,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return time.perf_counter() - start, done.stderr.decode()


def slowest_imports(stderr: str, top: int = 12) -> list[tuple[float, str]]:
    """The top-level imports of an `-X importtime` log with the most cumulative time (ms)."""
    rows = []
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|", 2)
            if cumulative.strip().isdigit() and name.startswith(" ") and name[1] != " ":
                rows.append((int(cumulative) / 1000.0, name.strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=11)
    opts = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as model:
        model.default = lambda _payload: text("hi")
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
        env.update(
            INK_STATE_DIR=str(Path(tmp, "state")),
            INK_BASE_URL=model.base_url,
            INK_MODEL="fake-model",
        )
        bare(python), initialize(python, env), run(python, env, tmp)  # warm the bytecode
        times: dict[str, list[float]] = {name: [] for name in (*FLOORS, "initialize", "run")}
        for _ in range(opts.rounds):
            for name, code in FLOORS.items():
                times[name].append(bare(python, code))
            times["initialize"].append(initialize(python, env)[0])
            times["run"].append(run(python, env, tmp)[0])
        _, init_log = initialize(python, env, "-X", "importtime")
        _, run_log = run(python, env, tmp, "-X", "importtime")
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"medians of {opts.rounds} interleaved rounds")
    rows = (
        ("pass", "`python -c pass`", "pass"),
        ("bare", "bare `import pygls.lsp.server`", "bare"),
        ("libs", "`import pydantic, httpx, rich`", "libs"),
        ("initialize", "initialize answered", "bare"),
        ("run", "`ink-ls run` to exit", "pass"),
        ("run", "`ink-ls run` to exit", "libs"),
    )
    for name, label, floor in rows:
        ratio = medians[name] / medians[floor]
        print(f"  {label:32} {medians[name] * 1000:7.1f} ms   {ratio:.2f}x {floor}")
    print("  targets: initialize <= 1.30x bare; `ink-ls run` <= 350 ms")
    for title, log in (("initialize", init_log), ("`ink-ls run`", run_log)):
        print(f"slowest top-level imports of the {title} path (cumulative ms):")
        for ms, module in slowest_imports(log):
            print(f"  {ms:7.1f}  {module}")


if __name__ == "__main__":
    main()

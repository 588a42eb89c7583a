"""Start-up benchmark, run on demand: `.venv/bin/python bench/startup.py [--rounds 11]`.

Five timings per round, interleaved so machine load hits all alike (bytecode warm): the
floors `python -c pass`, `python -c "import pygls.lsp.server"` and `python -c "import
pydantic, httpx, rich.console"` (the libraries `ink-ls run` cannot do without), then
`python -m ink_ls --stdio` from spawn to the `initialize` answer, and `ink-ls run` against an
instant loopback model from spawn to exit. Prints medians of the wall time and of the CPU time
(the process and the children it reaped: less sensitive to the machine's load), the ratios to
the floors, and the slowest imports of both paths (`python -X importtime`). With `--against
DIR`, the two paths of another checkout (e.g. main's, same interpreter) run in the same rounds.
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


def reap(proc: subprocess.Popen[bytes]) -> float:
    """Wait for `proc`; the CPU seconds it and the children it reaped used."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def bare(python: str, code: str = FLOORS["bare"]) -> tuple[float, float]:
    """Wall and CPU seconds for a bare interpreter to run `code` (an import) and exit."""
    start = time.perf_counter()
    cpu = reap(subprocess.Popen([python, "-c", code]))
    return time.perf_counter() - start, cpu


def checkout_env(env: dict[str, str], checkout: Path) -> dict[str, str]:
    """`env` with `checkout`'s ink_ls first on the path."""
    return env | {"PYTHONPATH": str(checkout)}


def initialize(
    python: str, env: dict[str, str], *flags: str, checkout: Path = REPO
) -> tuple[float, str]:
    """Seconds from spawn to the `initialize` answer, and the server's stderr (the server
    lives on after the answer: no CPU time is taken for it)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [python, *flags, "-m", "ink_ls", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=checkout_env(env, checkout),
        cwd=checkout,  # `-m` puts the working directory first on the path
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


def run(
    python: str, env: dict[str, str], cwd: str, *flags: str, checkout: Path = REPO
) -> tuple[float, float, str]:
    """Wall and CPU seconds for `ink-ls run` to answer one prompt (instant model) and exit;
    its stderr."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [python, *flags, "-m", "ink_ls", "run", "--cwd", cwd, "hello"],
            env=checkout_env(env, checkout),
            cwd=checkout,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        cpu = reap(proc)
        took = time.perf_counter() - start
        err.seek(0)
        log = err.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"ink-ls run failed ({proc.returncode}): {log[-2000:]}")
    return took, cpu, log


def slowest_imports(stderr: str, top: int = 12) -> list[tuple[float, str]]:
    """The top-level imports of an `-X importtime` log with the most cumulative time (ms)."""
    rows = []
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|", 2)
            if cumulative.strip().isdigit() and name.startswith(" ") and name[1] != " ":
                rows.append((int(cumulative) / 1000.0, name.strip()))
    return sorted(rows, reverse=True)[:top]


def measure(rounds: int, checkouts: dict[str, Path]) -> tuple[Samples, dict[str, str]]:
    """Wall and CPU seconds of every timing over `rounds` interleaved rounds (each checkout's
    two paths labelled with its name), and the `-X importtime` logs of this checkout."""
    python = sys.executable
    samples: Samples = {}

    def add(name: str, wall: float, cpu: float | None = None) -> None:
        walls, cpus = samples.setdefault(name, ([], []))
        walls.append(wall)
        if cpu is not None:
            cpus.append(cpu)

    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as model:
        model.default = lambda _payload: text("hi")
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
        env.update(
            INK_STATE_DIR=str(Path(tmp, "state")),
            INK_BASE_URL=model.base_url,
            INK_MODEL="fake-model",
        )
        bare(python)
        for checkout in checkouts.values():  # warm the bytecode
            initialize(python, env, checkout=checkout), run(python, env, tmp, checkout=checkout)
        for _ in range(rounds):
            for name, code in FLOORS.items():
                add(name, *bare(python, code))
            for label, checkout in checkouts.items():
                add(f"initialize{label}", initialize(python, env, checkout=checkout)[0])
                add(f"run{label}", *run(python, env, tmp, checkout=checkout)[:2])
        logs = {
            "initialize": initialize(python, env, "-X", "importtime")[1],
            "`ink-ls run`": run(python, env, tmp, "-X", "importtime")[2],
        }
    return samples, logs


Samples = dict[str, tuple[list[float], list[float]]]
"""Timing name → (wall seconds, CPU seconds) of every round (no CPU for `initialize`)."""


def report(rounds: int, samples: Samples, labels: list[str]) -> None:
    """The medians and their ratios to the floors."""
    print(f"medians of {rounds} interleaved rounds (wall ms, CPU ms of the process)")
    wall = {name: statistics.median(w) for name, (w, _) in samples.items()}
    cpu = {name: statistics.median(c) for name, (_, c) in samples.items() if c}
    rows = [
        ("pass", "`python -c pass`", "pass"),
        ("bare", "bare `import pygls.lsp.server`", "bare"),
        ("libs", "`import pydantic, httpx, rich`", "libs"),
    ]
    for label in labels:
        rows += [
            (f"initialize{label}", f"initialize answered{label}", "bare"),
            (f"run{label}", f"`ink-ls run` to exit{label}", "pass"),
            (f"run{label}", f"`ink-ls run` to exit{label}", "libs"),
        ]
    for name, text_, floor in rows:
        line = f"  {text_:40} {wall[name] * 1000:7.1f} ms {wall[name] / wall[floor]:5.2f}x {floor}"
        if name in cpu:
            line += f"   CPU {cpu[name] * 1000:6.1f} ms {cpu[name] / cpu[floor]:5.2f}x {floor}"
        print(line)
    print("  targets: initialize <= 1.30x bare; `ink-ls run` <= 350 ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument(
        "--against", type=Path, metavar="DIR", help="another checkout timed in the same rounds"
    )
    opts = parser.parse_args()
    checkouts = {"": REPO}
    if opts.against is not None:
        checkouts[f" ({opts.against.name})"] = opts.against.resolve()
    samples, logs = measure(opts.rounds, checkouts)
    report(opts.rounds, samples, list(checkouts))
    for title, log in logs.items():
        print(f"slowest top-level imports of the {title} path (cumulative ms):")
        for ms, module in slowest_imports(log):
            print(f"  {ms:7.1f}  {module}")


if __name__ == "__main__":
    main()

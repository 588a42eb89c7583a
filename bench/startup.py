"""Start-up benchmark, run on demand: `.venv/bin/python bench/startup.py [--rounds 11]`.

Three timings per round, interleaved so machine load hits all alike (bytecode warm):
`python -c "import pygls.lsp.server"` (the floor), `python -m ink_ls --stdio` from spawn to
the `initialize` answer, and `ink-ls run` against an instant loopback model from spawn to
exit. Prints medians, the ratios to the floor, and the slowest imports of the initialize
path (`python -X importtime`).
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


def bare(python: str) -> float:
    """Seconds for a bare interpreter to import pygls' language server."""
    start = time.perf_counter()
    subprocess.run([python, "-c", "import pygls.lsp.server"], check=True)
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


def run(python: str, env: dict[str, str], cwd: str) -> float:
    """Seconds for `ink-ls run` to answer one prompt (instant model) and exit."""
    start = time.perf_counter()
    subprocess.run(
        [python, "-m", "ink_ls", "run", "--cwd", cwd, "hello"],
        check=True,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


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
        times: dict[str, list[float]] = {"bare": [], "initialize": [], "run": []}
        for _ in range(opts.rounds):
            times["bare"].append(bare(python))
            times["initialize"].append(initialize(python, env)[0])
            times["run"].append(run(python, env, tmp))
        _, log = initialize(python, env, "-X", "importtime")
    floor = statistics.median(times["bare"])
    print(f"medians of {opts.rounds} interleaved rounds")
    print(f"  bare `import pygls.lsp.server`   {floor * 1000:7.1f} ms   1.00x")
    for name, label in (("initialize", "initialize answered"), ("run", "`ink-ls run` to exit")):
        median = statistics.median(times[name])
        print(f"  {label:32} {median * 1000:7.1f} ms   {median / floor:.2f}x")
    print("slowest top-level imports of the initialize path (cumulative ms):")
    for ms, name in slowest_imports(log):
        print(f"  {ms:7.1f}  {name}")


if __name__ == "__main__":
    main()

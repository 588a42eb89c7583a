"""Latency of the `lsp` tool, run on demand: `.venv/bin/python bench/lsp.py [--modules N]`.

The same question, "who uses `greet`" (references, declaration included), on a generated
Python project (`pkg/util.py` defines `greet`, N modules import and call it), asked by a
scripted model through ink-ls three ways:

1. through the editor: headless Neovim with jedi-language-server already attached by vim.lsp
   (bench/lsp.lua); ink-ls asks it with `ink/languageFeatures`;
2. through a server ink-ls starts itself (`ink-ls run`, jedi found beside the interpreter):
   the first call includes starting and initializing jedi;
3. grep: `rg -n -w greet` through the `bash` tool in the same `ink-ls run`.

A tool's time is measured at the model: from the reply that asks for the call to the next
request (which carries its result), so it includes the agent loop's own few milliseconds;
a `read` of a small file is the baseline of that overhead. Wall clock (the machine's load
counts; printed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fakes.model_server import FakeModelServer, Reply, text, tool  # noqa: E402

NVIM = REPO / ".venv" / "bin" / "nvim"
WARM = 5
UTIL = 'def greet(name: str) -> str:\n    """Say hello to someone."""\n    return f"hello {name}"\n'
REFERENCES = {"operation": "references", "path": "pkg/util.py", "line": 1, "symbol": "greet"}


def project(root: Path, modules: int) -> None:
    """`pkg/util.py` and `modules` modules that import and call `greet` twice."""
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0"\n')
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "util.py").write_text(UTIL)
    for i in range(modules):
        (root / "pkg" / f"m{i:03}.py").write_text(
            f"from pkg.util import greet\n\n\ndef f{i}() -> str:\n"
            f'    return greet("{i}") + greet("again")\n'
        )


class Clock:
    """The scripted model: replies in order, noting when each request arrives."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.arrivals: list[float] = []

    def __call__(self, payload: dict[str, Any]) -> Reply:
        self.arrivals.append(time.perf_counter())
        return self.replies[len(self.arrivals) - 1]

    def durations(self) -> list[float]:
        """Milliseconds of each tool call (request k+1 minus request k)."""
        a = self.arrivals
        return [(a[i + 1] - a[i]) * 1000 for i in range(len(a) - 1)]


def script(grep: bool) -> list[Reply]:
    calls = [tool("read", {"path": "pyproject.toml"})] * 2
    calls += [tool("lsp", REFERENCES)] * (1 + WARM)
    if grep:
        calls += [tool("bash", {"command": "rg -n -w greet ."})] * (1 + WARM)
    return [*calls, text("done")]


def through_editor(root: Path) -> list[float]:
    clock = Clock(script(grep=False))
    with FakeModelServer() as model:
        model.push(*([clock] * len(clock.replies)))
        env = {**os.environ, "INK_BENCH_KEY": "sk-bench"}
        env.pop("CI", None)
        out = subprocess.run(
            [str(NVIM), "--headless", "-u", "NONE", "-i", "NONE", "-n", "-l"]
            + [str(REPO / "bench" / "lsp.lua"), str(REPO), str(root), model.base_url],
            capture_output=True,
            text=True,
            timeout=600,
            env=env,
            cwd=root,
        )
        assert "OK" in out.stdout, out.stdout + out.stderr
        results = [m for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert "pkg/m000.py:1:" in str(results[2]["content"]), results[2]
    return clock.durations()


def through_ink_ls(root: Path) -> list[float]:
    clock = Clock(script(grep=True))
    with FakeModelServer() as model:
        model.push(*([clock] * len(clock.replies)))
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        env.update(INK_BASE_URL=model.base_url, INK_MODEL="fake-model", INK_API_KEY="sk-bench")
        env["INK_STATE_DIR"] = str(root.parent / "state")
        subprocess.run(
            [sys.executable, "-m", "ink_ls", "run", "--cwd", str(root), "--approval", "auto"]
            + ["find the callers of greet"],
            capture_output=True,
            timeout=600,
            env=env,
            check=True,
        )
        results = [m for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert "pkg/m000.py:1:" in str(results[2]["content"]), results[2]
    return clock.durations()


def summary(name: str, ms: list[float]) -> str:
    first, warm = ms[0], ms[1:]
    return (
        f"{name:<44} first {first:8.1f} ms   warm median {statistics.median(warm):7.1f} ms"
        f"  (min {min(warm):.1f}, max {max(warm):.1f})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--modules", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        editor_ws, own_ws = Path(tmp) / "editor" / "ws", Path(tmp) / "own" / "ws"
        for root in (editor_ws, own_ws):
            project(root, args.modules)
        editor = through_editor(editor_ws)
        own = through_ink_ls(own_ws)
    n = 2 + 1 + WARM
    print(f"project: pkg/util.py + {args.modules} modules calling greet twice")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(summary("baseline: read (agent loop overhead), editor", editor[:2]))
    print(summary("lsp references through Neovim + jedi", editor[2:n]))
    print(summary("lsp references, jedi started by ink-ls", own[2:n]))
    print(summary("grep: bash `rg -n -w greet .`", own[n : n + 1 + WARM]))


if __name__ == "__main__":
    main()

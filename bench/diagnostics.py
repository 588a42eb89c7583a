"""How long an edit waits for the editor's diagnostics, run on demand:
`.venv/bin/python bench/diagnostics.py [--edits N]`.

A real headless Neovim 0.12 with `ruff server` attached to Python buffers runs the real ink-ls
(approval auto); the scripted model writes N Python files in one turn, each
version adding an unused import or an undefined name. Each write is a new file the editor
loads for its language servers. The server logs how long each write waited for ruff's
diagnostics to settle (bounded at 2 s); this prints the median and the max, and the run's wall
time per write against the same run in a Neovim without ruff (baseline: no language server, so
nothing is waited for) measured in the same run.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.editors.test_nvim import SECRET, run_nvim  # noqa: E402
from tests.fakes.model_server import FakeModelServer, text, tool  # noqa: E402


def session(root: Path, edits: int, *, ruff: bool) -> tuple[list[float], float]:
    ws = root / "ws"
    ws.mkdir()
    (ws / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["F"]\n')
    (ws / "m0.py").write_text("import os\n")
    (ws / "m1.py").write_text("import sys\n")
    log = root / "server.log"
    with FakeModelServer() as model:
        for n in range(edits):
            body = "".join(f"import mod_{i}\n" for i in range(n + 1)) + f"x = name_{n}\n"
            # two open files in turn (back-to-back writes of one open buffer race the
            # buffer's own version in auto mode: see the report)
            model.push(tool("write", {"path": f"m{n % 2}.py", "content": body}))
        model.push(text("Done."))
        started = time.perf_counter()
        run = run_nvim(
            "diagnostics_bench.lua",
            root,
            timeout=150,
            env_extra={
                "INK_TEST_BASE_URL": model.base_url,
                "INK_TEST_WORKSPACE": str(ws),
                "INK_TEST_API_KEY": SECRET,
                "INK_TEST_SERVER_LOG": str(log),
                **({} if ruff else {"INK_BENCH_NO_RUFF": "1"}),
            },
        )
        wall = time.perf_counter() - started
        sent = len(model.requests)
    assert "PASS bench: edits wait for ruff" in run.results, run.results + [run.output[-2000:]]
    waits = [float(m) for m in re.findall(r"settled after (\d+) ms", log.read_text())]
    assert sent == edits + 1, f"{sent} model requests for {edits} edits"
    return waits, wall / edits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as b:
        _, plain = session(Path(b), args.edits, ruff=False)
    with tempfile.TemporaryDirectory() as a:
        waits, linted = session(Path(a), args.edits, ruff=True)
    print(
        f"{len(waits)} writes with ruff: wait for diagnostics median "
        f"{statistics.median(waits):.0f} ms, max {max(waits):.0f} ms (bound 2000 ms)"
    )
    print(
        f"run time per write: {1000 * linted:.0f} ms with ruff vs {1000 * plain:.0f} ms without "
        f"a language server ({linted / plain:.2f}x; includes Neovim and server start-up)"
    )


if __name__ == "__main__":
    main()

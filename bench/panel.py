"""Benchmark of the VS Code Ink panel, run on demand: `.venv/bin/python bench/panel.py`.

Runs bench/panel.mjs in the real workbench (code-server + headless chromium, installed by
editors/vscode/scripts/setup-tests) against the real ink-ls and a scripted model on loopback:

1. Latency: a 2,000-delta answer (prose in paragraphs, 8 characters per delta) streamed at
   --delay seconds per delta; for every delta the time
   from its arrival at the extension (off the wire) to the end of the animation frame that put
   it in the panel's DOM (median, p95), against the extension → webview postMessage transit of
   the same batches (the floor any webview pays), measured in this run.
2. Responsiveness: a 5,000-line markdown answer (paragraphs, lists, highlighted code blocks);
   the longest gap between requestAnimationFrame callbacks in the webview while it streams
   (target: no frame over 100 ms), against the idle panel's longest gap in the same run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.editors.test_vscode import run_node  # noqa: E402
from tests.fakes.model_server import FakeModelServer, Reply  # noqa: E402


def long_answer(lines: int) -> str:
    """Markdown of `lines` lines: headings, paragraphs, lists and python blocks, each line
    numbered (`line N of the answer`) so the last one can be found in the panel."""
    out: list[str] = []
    n = 0

    def add(text: str) -> None:
        nonlocal n
        n += 1
        out.append(text.format(n=n))

    while n < lines:
        block = (n // 10) % 4
        if n % 100 == 0:
            add("## Part {n}: line {n} of the answer")
        elif block == 0:
            add("Some *prose* with `code` and **bold**, line {n} of the answer.")
        elif block == 1:
            add("- a list item, line {n} of the answer")
        elif block == 2 and n % 10 == 0:
            add("```python")
            for _ in range(7):
                if n < lines - 1:
                    add("value = compute({n})  # line {n} of the answer")
            add("```")
        else:
            add("")
    out[-1] = f"line {lines} of the answer"
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=2000)
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--delay", type=float, default=0.005, help="seconds between deltas")
    args = parser.parse_args()

    chunk = 8
    sentence = "Streaming words to the panel, one delta at a time. "
    paragraph = sentence * 5 + "\n\n"  # prose as a model writes it: paragraphs of ~260 chars
    short = (paragraph * (args.deltas * chunk // len(paragraph) + 1))[: args.deltas * chunk]
    long = long_answer(args.lines)
    with tempfile.TemporaryDirectory(prefix="bench-panel-") as tmp, FakeModelServer() as srv:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "README.md").write_text("# Bench\n")
        srv.push(
            Reply(text=short, chunk_size=chunk, delay=args.delay),
            Reply(text=long, chunk_size=40, delay=args.delay / 4),
        )
        rc, out = run_node(
            str(REPO / "bench" / "panel.mjs"),
            [],
            {
                "INK_TEST_WORKSPACE": str(ws),
                "INK_TEST_MODEL_URL": srv.base_url,
                "INK_TEST_TMP": tmp,
            },
            timeout=900,
        )
    line = next((x for x in out.splitlines() if x.startswith("RESULT ")), None)
    if rc != 0 or line is None:
        print(out)
        raise SystemExit(f"bench/panel.mjs failed (exit {rc})")
    r = json.loads(line[len("RESULT ") :])
    print(f"1. {r['deltas']} text deltas in {r['batches']} batches")
    print(
        f"   wire → panel DOM: median {r['latencyMedianMs']} ms, p95 {r['latencyP95Ms']} ms, "
        f"max {r['latencyMaxMs']} ms"
    )
    print(
        f"   baseline, extension → webview transit: median {r['transitMedianMs']} ms "
        f"(ratio {r['latencyMedianMs'] / max(r['transitMedianMs'], 1):.1f}x)"
    )
    print(
        f"2. {args.lines}-line answer streamed in {r['streamMs'] / 1000:.1f} s, "
        f"last line shown: {r['lastLineShown']}, "
        f"log followed to its end: {r['followedToEnd']}"
    )
    print(
        f"   frames: longest gap {r['streamMaxGapMs']:.1f} ms, p99 {r['streamP99GapMs']:.1f} ms, "
        f"{r['streamGapsOver50']} over 50 ms, {r['streamGapsOver100']} over 100 ms "
        f"({r['streamFrames']} frames)"
    )
    print(
        f"   the panel's own drawing per frame: longest {r['drawMaxMs']:.1f} ms, "
        f"p99 {r['drawP99Ms']:.1f} ms ({r['draws']} frames drawn)"
    )
    print(
        f"   baseline, idle panel: longest gap {r['idleMaxGapMs']:.1f} ms, "
        f"p99 {r['idleP99GapMs']:.1f} ms ({r['idleFrames']} frames)"
    )
    ok = r["streamGapsOver100"] == 0 and r["lastLineShown"] and r["followedToEnd"]
    print("target (no frame over 100 ms, whole answer shown):", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()

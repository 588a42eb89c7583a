"""Benchmark of the Neovim chat buffer, run on demand: `.venv/bin/python bench/nvim_chat.py`.

In a headless Neovim 0.12 (the test one, from PyPI), bench/nvim_chat.lua measures:

1. Per text delta: the time from an `ink/session/update` reaching the plugin's handler to the
   text being in the chat buffer (markdown, treesitter attached), median over a 2,000-delta
   answer, against the same deltas appended to the plain transcript buffer (the view the chat
   replaces) measured in the same run; then one redraw's parse of the rows on screen.
2. Responsiveness: a 5,000-line answer (a tool call with folded output every 500 lines)
   streamed through the event loop, a few deltas and a redraw's highlighting work per loop
   turn (treesitter parses asynchronously in 3 ms slices as Neovim 0.12's highlighter does;
   past `chat.treesitter_max_lines`, 2,000 by default, the chat uses regex markdown syntax).
   A 10 ms timer records the longest time the loop was blocked (keys and redraws wait that
   long), and the longest loop turn in CPU time, against the transcript.
Per-delta and per-turn times are CPU time (os.clock): other processes on the machine do not
count. Wall-clock figures include the machine's load (printed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NVIM = REPO / ".venv" / "bin" / "nvim"


def run(deltas: int, lines: int) -> dict[str, float]:
    """One run of the Lua side; its figures."""
    out = subprocess.run(
        [
            str(NVIM),
            "--headless",
            "-u",
            "NONE",
            "-i",
            "NONE",
            "-n",
            "-l",
            str(REPO / "bench" / "nvim_chat.lua"),
            str(REPO),
            str(deltas),
            str(lines),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    last = [line for line in out.stdout.splitlines() if line.startswith("{")][-1]
    figures: dict[str, float] = json.loads(last)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deltas", type=int, default=2000)
    ap.add_argument("--lines", type=int, default=5000)
    args = ap.parse_args()
    f = run(args.deltas, args.lines)
    ratio = f["chat_median_us"] / max(f["transcript_median_us"], 1e-9)
    print(f"treesitter markdown: {'on' if f['treesitter'] else 'not available'}")
    print(
        f"text delta → chat buffer, median over {f['deltas']} deltas: "
        f"{f['chat_median_us']:.0f} µs (max {f['chat_max_us'] / 1000:.1f} ms); "
        f"transcript baseline {f['transcript_median_us']:.0f} µs; ratio {ratio:.1f}x"
    )
    print(f"one redraw's parse of the visible rows after that answer: {f['final_parse_ms']:.1f} ms")
    after = "treesitter" if f["treesitter_after_long"] else "regex syntax (past the limit)"
    print(f"highlighting after the long answer: {after}")
    print(
        f"{f['long_lines']}-line answer with {f['long_calls']} folded calls "
        f"({f['long_buffer_lines']} buffer lines), 5 deltas and a redraw per loop turn:"
    )
    print(
        f"  chat: slowest delta {f['long_slowest_delta_ms']:.1f} ms, slowest loop turn "
        f"{f['long_slowest_batch_ms']:.1f} ms CPU; longest event-loop stall "
        f"{f['long_max_loop_stall_ms']:.0f} ms wall, all in {f['long_total_ms']:.0f} ms wall"
    )
    print(
        f"  transcript baseline: slowest loop turn {f['base_slowest_batch_ms']:.1f} ms CPU; "
        f"longest stall {f['base_max_loop_stall_ms']:.0f} ms wall, all in "
        f"{f['base_total_ms']:.0f} ms wall"
    )
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores (wall figures include it)")
    sys.exit(0)


if __name__ == "__main__":
    main()

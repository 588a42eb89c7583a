"""What the command sandbox costs per `bash` call: the same commands through the bash tool,
sandboxed and not, interleaved in one run; prints medians and the ratio.

`.venv/bin/python bench/sandbox.py [--runs N]`
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ink_ls.core.signal import NEVER  # noqa: E402
from ink_ls.core.tool import ToolContext  # noqa: E402
from ink_ls.tools import _process  # noqa: E402
from ink_ls.tools.bash import BashTool  # noqa: E402
from ink_ls.tools.sandbox import SandboxSettings, availability  # noqa: E402

COMMANDS = {
    "true": "true",
    "echo + write a file": "echo hi > out.txt && cat out.txt",
    "git --version": "git --version",
}


async def median_ms(tool: BashTool, command: str, ws: Path) -> float:
    params = tool.validate_arguments({"command": command})
    started = time.perf_counter()
    result = await tool.execute(params, NEVER, ToolContext("bench", ws))
    elapsed = (time.perf_counter() - started) * 1000.0
    assert not result.is_error, result.output
    return elapsed


async def main(runs: int) -> None:
    found = availability()
    if not found.ok:
        print(f"no sandbox on this machine: {found.problem}")
        return
    print(f"sandbox: {found.mechanism}; {runs} runs per command, interleaved")
    with tempfile.TemporaryDirectory() as name:
        ws = Path(name)
        plain = BashTool(log_dir=name)
        boxed = BashTool(log_dir=name, sandbox=SandboxSettings(enabled=True))
        for label, command in COMMANDS.items():
            times: dict[str, list[float]] = {"plain": [], "sandbox": []}
            for _ in range(3):  # warm both paths (page cache, first-use imports)
                await median_ms(plain, command, ws)
                await median_ms(boxed, command, ws)
            for _ in range(runs):
                times["plain"].append(await median_ms(plain, command, ws))
                times["sandbox"].append(await median_ms(boxed, command, ws))
            a, b = statistics.median(times["plain"]), statistics.median(times["sandbox"])
            print(
                f"{label:22} unsandboxed {a:7.1f} ms  sandboxed {b:7.1f} ms  "
                f"+{b - a:6.1f} ms  ×{b / a:.2f}"
            )
    _process.kill_all_tracked()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    asyncio.run(main(parser.parse_args().runs))

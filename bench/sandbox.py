"""What the command sandbox costs per `bash` call: the same commands through the bash tool,
unsandboxed and, for each mechanism this machine has (bwrap; Landlock + a network namespace),
sandboxed and sandboxed with the network allowed, interleaved in one run; prints medians and
the ratios.

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
from ink_ls.tools.sandbox import Mechanism, SandboxSettings, availability  # noqa: E402

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
    mechanisms: list[Mechanism] = []
    for mechanism in ("bwrap", "landlock"):
        found = availability(mechanism)
        print(f"{mechanism}: {found.mechanism if found.ok else found.problem}")
        if found.ok:
            mechanisms.append(mechanism)
    if not mechanisms:
        return
    print(f"auto picks: {availability().mechanism}; {runs} runs per command, interleaved")
    with tempfile.TemporaryDirectory() as name:
        ws = Path(name)
        tools = {"unsandboxed": BashTool(log_dir=name)}
        for mechanism in mechanisms:
            for net in (False, True):
                box = SandboxSettings(enabled=True, network=net, mechanism=mechanism)
                tools[f"{mechanism}{'+net' if net else ''}"] = BashTool(log_dir=name, sandbox=box)
        for label, command in COMMANDS.items():
            times: dict[str, list[float]] = {key: [] for key in tools}
            for _ in range(3):  # warm every path (page cache, first-use imports, rulesets)
                for tool in tools.values():
                    await median_ms(tool, command, ws)
            for _ in range(runs):
                for key, tool in tools.items():
                    times[key].append(await median_ms(tool, command, ws))
            base = statistics.median(times["unsandboxed"])
            print(f"{label}: unsandboxed {base:6.1f} ms")
            for key in list(tools)[1:]:
                t = statistics.median(times[key])
                print(f"  {key:15} {t:6.1f} ms (+{t - base:5.1f}, ×{t / base:.2f})")
    _process.kill_all_tracked()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    asyncio.run(main(parser.parse_args().runs))

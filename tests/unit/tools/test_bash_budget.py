"""The process-wide command budget counts real processes: more bash calls than the budget,
from separate batches on a CPU-loaded machine, some ending by themselves, some cancelled and
some abandoned at a short grace deadline. /proc is sampled on every budget release and every
event: never more live commands than the budget, and a released slot's command is gone."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.events import AgentEvent
from ink_ls.agent.scheduler import BatchEnv, run_batch
from ink_ls.core.messages import ToolCall
from ink_ls.core.signal import CancelController
from ink_ls.core.tool import ToolRegistry
from ink_ls.tools import _process
from ink_ls.tools.bash import BashTool

LIMIT = 3
SESSIONS = 10
HOG = (
    'import os, sys, time; hog = b"x" * (256 << 20); '
    'open(sys.argv[1], "w").write(str(os.getpid())); time.sleep(60)'
)


_known: dict[tuple[int, str], str] = {}
"""(pid, start time) → tag: a dying process's environment can no longer be read."""


def live_commands() -> set[str]:
    """Tags of this process's commands with at least one process alive (not a zombie)."""
    entry = f"{_process.TAG_VAR}={_process.TAG_PREFIX}-".encode()
    tags: set[str] = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] in "ZX":
            continue
        key = (int(name), fields[19])  # the start time tells a reused pid apart
        if key not in _known:
            try:
                environ = Path(f"/proc/{name}/environ").read_bytes()
            except OSError:
                continue
            for var in environ.split(b"\0"):
                if var.startswith(entry):
                    _known[key] = var.decode()
        if key in _known:
            tags.add(_known[key])
    return tags


class SampledBudget(ConcurrencyBudget):
    """A budget that looks at /proc each time a slot is given back."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.samples: list[tuple[int, int]] = []
        """(live commands, slots held) just before each release."""
        self.all_back = asyncio.Event()

    def release(self) -> None:
        self.samples.append((len(live_commands()), self.in_use))
        super().release()
        if len(self.samples) == SESSIONS and self.in_use == 0:
            self.all_back.set()


@pytest.fixture
def cpu_load() -> Iterator[None]:
    """Two busy processes (one per core of the test machine) for the test's duration."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


async def test_never_more_live_commands_than_the_budget(tmp_path: Path, cpu_load: None) -> None:
    budget = SampledBudget(LIMIT)
    seen: list[int] = []
    started: dict[int, asyncio.Event] = {i: asyncio.Event() for i in range(SESSIONS)}

    def on_event(i: int, event: AgentEvent) -> None:
        seen.append(len(live_commands()))
        if event.type == "tool_running":
            started[i].set()

    tools = ToolRegistry([BashTool(log_dir=str(tmp_path))])
    controllers = [CancelController() for _ in range(SESSIONS)]
    batches = []
    for i in range(SESSIONS):
        # Even sessions end by themselves; odd ones hang until cancelled, and every third
        # gets a grace deadline shorter than a loaded machine needs to reap its command.
        command = f"sleep 0.3 & echo $! > {tmp_path}/{i}.pid; wait"
        if i % 2:  # a big process: the kernel takes a while to free it after SIGKILL
            command = f"{sys.executable} -c '{HOG}' {tmp_path}/{i}.pid"
        env = BatchEnv(
            tools=tools,
            cwd=tmp_path,
            on_event=lambda e, i=i: on_event(i, e),
            budget=budget,
            grace_seconds=0.001 if i % 3 == 0 else 10.0,
        )
        calls = [ToolCall(id=f"c{i}", name="bash", arguments=json.dumps({"command": command}))]
        batches.append(asyncio.ensure_future(run_batch(calls, env, controllers[i].signal)))

    async def cancel_when_running(i: int) -> None:
        await started[i].wait()
        pid_file = tmp_path / f"{i}.pid"
        while not pid_file.exists():  # the command has started its sleep
            await asyncio.sleep(0.01)
        seen.append(len(live_commands()))
        controllers[i].cancel("stop")

    cancellers = [cancel_when_running(i) for i in range(1, SESSIONS, 2)]
    results = await asyncio.wait_for(asyncio.gather(*batches, *cancellers), 120)
    await asyncio.wait_for(budget.all_back.wait(), 60)  # abandoned calls finish their reap
    outputs = [r[0].content[0] for r in results[:SESSIONS]]
    assert len(outputs) == SESSIONS
    assert all((tmp_path / f"{i}.pid").exists() for i in range(SESSIONS))  # every one ran
    assert max(seen) <= LIMIT
    assert len(budget.samples) == SESSIONS and budget.in_use == 0
    for live, held in budget.samples:
        assert live <= held - 1  # the releasing command was gone; others hold their slots
    assert live_commands() == set()

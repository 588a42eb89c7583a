"""Path-aware scheduling is the default: with the real edit tools, changes of two
different files overlap, changes of one file keep call order, and bash stays a barrier."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agent_fakes import Recorder, ScriptedModel, reply

from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.loop import Agent, AgentOptions
from ink_ls.core.messages import ToolCall
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import DiskWriter, ToolRegistry
from ink_ls.tools.bash import BashTool
from ink_ls.tools.write import WriteTool


class SlowWriter:
    """Writes to disk once `meet` writes are in flight together (or after a short pause when
    `meet` is 1: a chance for a wrong overlap to show), recording which overlapped."""

    def __init__(self, meet: int = 1) -> None:
        self.in_flight: set[str] = set()
        self.overlapped: list[tuple[str, str]] = []
        self.order: list[str] = []
        self.meet = meet
        self.met = asyncio.Event()

    async def write_text(
        self,
        path: Path,
        new_text: str,
        *,
        old_text: str | None,
        tool_name: str,
        tool_call_id: str,
        signal: CancelSignal,
    ) -> None:
        for other in self.in_flight:
            self.overlapped.append((other, tool_call_id))
        self.in_flight.add(tool_call_id)
        if len(self.in_flight) >= self.meet:
            self.met.set()
        if self.meet > 1:  # an event, not a race against the machine's load
            await asyncio.wait_for(self.met.wait(), 30)
        else:
            await asyncio.sleep(0.05)
        await DiskWriter().write_text(
            path,
            new_text,
            old_text=old_text,
            tool_name=tool_name,
            tool_call_id=tool_call_id,
            signal=signal,
        )
        self.in_flight.discard(tool_call_id)
        self.order.append(tool_call_id)


def write(id: str, path: str, content: str) -> ToolCall:
    return ToolCall(id=id, name="write", arguments=json.dumps({"path": path, "content": content}))


def bash(id: str, command: str) -> ToolCall:
    return ToolCall(id=id, name="bash", arguments=json.dumps({"command": command}))


async def run(tmp_path: Path, *calls: ToolCall, meet: int = 1) -> SlowWriter:
    writer = SlowWriter(meet)
    model = ScriptedModel([reply("", *calls), reply("done")])
    agent = Agent(
        model,
        ToolRegistry([WriteTool(), BashTool()]),
        AgentOptions(cwd=tmp_path),
        writer=writer,
        on_event=Recorder(),
        budget=ConcurrencyBudget(8),
    )
    result = await agent.run("go")
    assert result.stop_reason == "completed"
    return writer


async def test_writes_of_two_files_overlap(tmp_path: Path) -> None:
    writer = await run(tmp_path, write("a", "a.txt", "A"), write("b", "b.txt", "B"), meet=2)
    # in flight together (which reached the writer first depends on the machine)
    assert [set(pair) for pair in writer.overlapped] == [{"a", "b"}]
    assert (tmp_path / "a.txt").read_text() == "A" and (tmp_path / "b.txt").read_text() == "B"


async def test_writes_of_one_file_keep_call_order(tmp_path: Path) -> None:
    writer = await run(tmp_path, write("1", "same.txt", "first"), write("2", "./same.txt", "2nd"))
    assert writer.overlapped == []
    assert writer.order == ["1", "2"]
    assert (tmp_path / "same.txt").read_text() == "2nd"


async def test_bash_stays_a_barrier(tmp_path: Path) -> None:
    writer = await run(
        tmp_path,
        write("a", "a.txt", "A"),
        bash("sh", "cat a.txt > copy.txt"),
        write("b", "b.txt", "B"),
    )
    assert writer.overlapped == []
    assert (tmp_path / "copy.txt").read_text() == "A"  # bash saw the write before it

"""Sub-agent visibility: a task call's child forwards its tool events and text deltas to the
parent's sink, tagged with the task call's id and namespaced ids; its message/run ends stay
private; the parent's history holds only the task call and its result."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

from agent_fakes import CWD, Board, ReadTool, Recorder, ScriptedModel, call, reply

from ink_ls.agent._subagent import child_call_id
from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.events import (
    MessageEndEvent,
    RunEndEvent,
    TextDeltaEvent,
    ToolEndEvent,
    ToolStartEvent,
)
from ink_ls.agent.gate import GateBlock, GateRequest
from ink_ls.agent.loop import Agent, AgentOptions
from ink_ls.core.messages import (
    AssistantMessage,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    text_of,
)
from ink_ls.core.signal import CancelController, CancelSignal
from ink_ls.core.tool import (
    AnyTool,
    Tool,
    ToolContext,
    ToolParams,
    ToolRegistry,
    ToolResult,
)
from ink_ls.model.base import Model, ModelRequest, ReplyDone, StreamItem
from ink_ls.tools.task import TaskTool


def task(call_id: str, prompt: str) -> ToolCall:
    return ToolCall(id=call_id, name="task", arguments=json.dumps({"prompt": prompt}))


def make_agent(model: Model, rec: Recorder, *tools: AnyTool, **kw: object) -> Agent:
    board = Board(auto=True)
    registry = ToolRegistry([ReadTool(board), TaskTool(), *tools])
    options = AgentOptions(cwd=CWD, grace_seconds=0.5)
    return Agent(model, registry, options, on_event=rec, budget=ConcurrencyBudget(4), **kw)  # type: ignore[arg-type]


def line(e: object) -> str:
    """A compact view of one event: type, id, parent tag (and text for deltas)."""
    if isinstance(e, TextDeltaEvent):
        return f"text:{e.parent_tool_call_id}:{e.text}"
    if isinstance(e, MessageEndEvent | RunEndEvent):
        return e.type
    tool_call_id = getattr(e, "tool_call_id", "")
    return f"{getattr(e, 'type', '')}:{tool_call_id}:{getattr(e, 'parent_tool_call_id', '')}"


async def test_child_tool_events_and_text_are_forwarded_tagged_and_namespaced() -> None:
    # The child's read call reuses the parent's id `call_1`: ids are model-generated.
    model = ScriptedModel(
        [
            reply("", task("call_1", "look around")),
            reply("abc", call("read", "x", id="call_1")),
            reply("def"),
            reply("ghi"),
        ]
    )
    rec = Recorder()
    agent = make_agent(model, rec)
    result = await asyncio.wait_for(agent.run("go"), 5)
    assert (result.stop_reason, result.text) == ("completed", "ghi")

    assert [line(e) for e in rec.events] == [
        "message_end",
        "tool_start:call_1:None",
        "tool_running:call_1:None",
        "text:call_1:abc",
        "usage::call_1",  # the child's message_end, as tokens only
        "tool_start:call_1/call_1:call_1",
        "tool_running:call_1/call_1:call_1",
        "tool_settled:call_1/call_1:call_1",
        "tool_end:call_1/call_1:call_1",
        "text:call_1:def",
        "usage::call_1",
        "tool_settled:call_1:None",
        "tool_end:call_1:None",
        "text:None:ghi",
        "message_end",
        "run_end",
    ]
    child_start = next(
        e for e in rec.events if isinstance(e, ToolStartEvent) and e.parent_tool_call_id
    )
    assert (child_start.tool_name, child_start.arguments) == ("read", {"key": "x"})
    child_end = next(e for e in rec.events if isinstance(e, ToolEndEvent) and e.parent_tool_call_id)
    assert text_of(child_end.content) == "read x"

    # the parent's history: its question, the task call, the task's result, the answer
    roles = [type(m).__name__ for m in agent.history]
    assert roles == ["UserMessage", "AssistantMessage", "ToolResultMessage", "AssistantMessage"]
    results = agent.history[2]
    assert isinstance(results, ToolResultMessage)
    assert [(r.tool_call_id, r.tool_name) for r in results.results] == [("call_1", "task")]
    assert text_of(results.results[0].content) == "def"
    # the child's own requests kept the model's ids (no namespacing inside the child)
    child_second = model.requests[2]
    child_reply = child_second.messages[1]
    assert isinstance(child_reply, AssistantMessage)
    assert [c.id for c in child_reply.tool_calls] == ["call_1"]


def by_prompt(request: ModelRequest) -> str:
    first = request.messages[0]
    assert isinstance(first, UserMessage)
    return "".join(b.text for b in first.content if isinstance(b, TextBlock))


class WriteParams(ToolParams):
    name: str


class Scribble(Tool[WriteParams]):
    """Writes through the context's writer, so the writer sees the call id."""

    name = "scribble"
    description = "writes"
    params_model = WriteParams
    concurrency_safe = True

    async def execute(
        self, args: WriteParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        await context.writer.write_text(
            Path("/nowhere") / args.name,
            "x",
            old_text=None,
            tool_name=self.name,
            tool_call_id=context.tool_call_id,
            signal=signal,
        )
        return ToolResult(output=f"wrote {args.name}")


class RecordingWriter:
    def __init__(self) -> None:
        self.ids: list[str] = []

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
        self.ids.append(tool_call_id)


async def test_two_subagents_with_the_same_child_ids_never_collide() -> None:
    """Both children call `scribble` as `call_1`; events, gate and writer see distinct ids."""

    class TwoJobs:
        async def stream(
            self, request: ModelRequest, signal: CancelSignal
        ) -> AsyncIterator[StreamItem]:
            await asyncio.sleep(0)
            prompt = by_prompt(request)
            n = len(request.messages)
            if prompt == "parent":
                msg = reply("", task("t1", "a"), task("t2", "b")) if n == 1 else reply("both done")
            elif n == 1:
                scribble = ToolCall(
                    id="call_1", name="scribble", arguments=json.dumps({"name": prompt})
                )
                msg = reply("", scribble)
            else:
                msg = reply(f"child {prompt} done")
            yield ReplyDone(msg)

    gated: list[str] = []

    async def gate(request: GateRequest, signal: CancelSignal) -> GateBlock | None:
        gated.append(request.tool_call_id)
        return None

    rec, writer = Recorder(), RecordingWriter()
    agent = make_agent(TwoJobs(), rec, Scribble(), gate=gate, writer=writer)
    result = await asyncio.wait_for(agent.run("parent"), 5)
    assert result.text == "both done"

    starts = [
        (e.tool_call_id, e.parent_tool_call_id) for e in rec.events if isinstance(e, ToolStartEvent)
    ]
    assert sorted(starts, key=str) == sorted(
        [("t1", None), ("t2", None), ("t1/call_1", "t1"), ("t2/call_1", "t2")], key=str
    )
    assert sorted(gated) == ["t1", "t1/call_1", "t2", "t2/call_1"]
    assert sorted(writer.ids) == ["t1/call_1", "t2/call_1"]
    # each id goes through its own four steps exactly once
    for cid in ("t1/call_1", "t2/call_1"):
        assert [e.type for e in rec.events if getattr(e, "tool_call_id", None) == cid] == [
            "tool_start",
            "tool_running",
            "tool_settled",
            "tool_end",
        ]
    assert sum(isinstance(e, RunEndEvent) for e in rec.events) == 1
    assert sum(isinstance(e, MessageEndEvent) for e in rec.events) == 2


def test_child_call_ids_are_prefixed_with_the_task_call_id() -> None:
    assert child_call_id("call_7", "call_1") == "call_7/call_1"


class Stubborn(Tool[WriteParams]):
    """Ignores its cancel signal; records when its task is finally asyncio-cancelled."""

    name = "stubborn"
    description = "never stops by itself"
    params_model = WriteParams
    concurrency_safe = True

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.killed = asyncio.Event()

    async def execute(
        self, args: WriteParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.killed.set()
            raise
        raise AssertionError("unreachable")


async def test_nothing_of_an_abandoned_task_is_forwarded_after_its_result() -> None:
    """Cancel + grace: the parent abandons the task; the child's late events are dropped."""
    stubborn = Stubborn()
    stuck = ToolCall(id="call_1", name="stubborn", arguments=json.dumps({"name": "x"}))
    model = ScriptedModel([reply("", task("call_1", "hold on")), reply("", stuck)])
    rec = Recorder()
    agent = make_agent(model, rec, stubborn)
    controller = CancelController()
    run = asyncio.ensure_future(agent.run("go", controller.signal))
    await asyncio.wait_for(stubborn.started.wait(), 5)
    controller.cancel("user")
    result = await asyncio.wait_for(run, 5)
    assert result.stop_reason == "aborted"
    await asyncio.wait_for(stubborn.killed.wait(), 5)  # the child's own grace ran out too

    trace = [line(e) for e in rec.events]
    task_end = trace.index("tool_end:call_1:None")
    forwarded = [i for i, e in enumerate(rec.events) if getattr(e, "parent_tool_call_id", None)]
    assert trace[forwarded[0] : forwarded[0] + 2] == [
        "usage::call_1",  # the child's reply, as tokens
        "tool_start:call_1/call_1:call_1",
    ]
    assert max(forwarded) < task_end
    assert trace[-1] == "run_end"

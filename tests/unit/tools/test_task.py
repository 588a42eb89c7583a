"""The task tool and sub-agents: delegation through a real child Agent, the shared budget
without deadlock, cancellation reaching the child, and the 50 KiB tail cut."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from pydantic import Field

from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.gate import GateBlock, GateRequest
from ink_ls.agent.loop import Agent, AgentOptions
from ink_ls.core.messages import (
    AssistantMessage,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from ink_ls.core.signal import NEVER, CancelController, CancelSignal
from ink_ls.core.tool import Tool, ToolContext, ToolParams, ToolRegistry, ToolResult
from ink_ls.model.base import ModelError, ModelRequest, ReplyDone, StreamItem
from ink_ls.tools.task import MAX_ANSWER_BYTES, TaskParams, TaskTool, tail_cut

Responder = Callable[[ModelRequest], AssistantMessage]


class RespondingModel:
    """Answers each request from its content (parent and children share one model)."""

    def __init__(self, respond: Responder) -> None:
        self.respond = respond
        self.requests: list[ModelRequest] = []

    async def stream(
        self, request: ModelRequest, signal: CancelSignal
    ) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        await asyncio.sleep(0)
        yield ReplyDone(self.respond(request))


class LookParams(ToolParams):
    what: str = Field(description="what to look at")


class LookTool(Tool[LookParams]):
    """A leaf tool that waits for its signal when asked to look at "forever"."""

    name = "look"
    description = "looks"
    params_model = LookParams
    concurrency_safe = True

    def __init__(self) -> None:
        self.running = 0
        self.max_running = 0
        self.started = asyncio.Event()
        self.saw_cancel = False

    async def execute(
        self, args: LookParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        self.running += 1
        self.max_running = max(self.max_running, self.running)
        self.started.set()
        try:
            await asyncio.sleep(0)
            if args.what == "forever":
                await signal.wait()
                self.saw_cancel = True
                return ToolResult(output="stopped", is_error=True)
            return ToolResult(output=f"saw {args.what}")
        finally:
            self.running -= 1


def task_call(i: int, prompt: str) -> ToolCall:
    return ToolCall(id=f"t{i}", name="task", arguments=TaskParams(prompt=prompt).model_dump_json())


def last_text(request: ModelRequest) -> str:
    last = request.messages[-1]
    if isinstance(last, UserMessage):
        return "".join(b.text for b in last.content if isinstance(b, TextBlock))
    if isinstance(last, ToolResultMessage):
        return "|".join(b.text for r in last.results for b in r.content if isinstance(b, TextBlock))
    return ""


def two_jobs(request: ModelRequest) -> AssistantMessage:
    """Parent: delegate two jobs, then summarise. Child: look once, then answer."""
    first = request.messages[0]
    assert isinstance(first, UserMessage)
    prompt = "".join(b.text for b in first.content if isinstance(b, TextBlock))
    if prompt == "parent":
        if len(request.messages) == 1:
            return AssistantMessage(
                tool_calls=[task_call(1, "job a"), task_call(2, "job b")], stop_reason="tool_use"
            )
        return AssistantMessage(text="summary: " + last_text(request))
    what = prompt.removeprefix("job ")
    if len(request.messages) == 1:
        look = ToolCall(id=f"l-{what}", name="look", arguments=f'{{"what": "{what}"}}')
        return AssistantMessage(tool_calls=[look], stop_reason="tool_use")
    return AssistantMessage(text=f"answer {what} after {last_text(request)}")


def make_agent(
    model: RespondingModel, look: LookTool, budget: ConcurrencyBudget, **kw: object
) -> Agent:
    tools = ToolRegistry([look, TaskTool()])
    return Agent(
        model, tools, AgentOptions(cwd=Path("/tmp"), grace_seconds=1.0), budget=budget, **kw
    )  # type: ignore[arg-type]


def test_task_tool_contract() -> None:
    tool = TaskTool()
    assert (tool.name, tool.concurrency_safe, tool.delegates) == ("task", True, True)
    assert "independent" in tool.description and "same time" in tool.description
    schema = tool.parameters()
    assert schema["required"] == ["prompt"] and schema["additionalProperties"] is False
    assert set(schema["properties"]) == {"prompt", "description"}


async def test_without_a_subagent_runner_the_tool_errors() -> None:
    result = await TaskTool().execute(
        TaskParams(prompt="x"), NEVER, ToolContext("c1", Path("/tmp"))
    )
    assert result.is_error
    assert result.output == (
        "Error: sub-agents are not available here; do the work yourself with the other tools."
    )


def test_long_answers_keep_their_tail_with_a_note() -> None:
    answer = "é" + "x" * (MAX_ANSWER_BYTES + 100) + "THE END"
    cut = tail_cut(answer)
    note, body = cut.split("\n\n", 1)
    size = len(answer.encode())
    assert note == f"[The sub-agent's answer was {size} bytes; showing only its last 50 KiB.]"
    assert body.endswith("THE END") and len(body.encode()) == MAX_ANSWER_BYTES
    assert tail_cut("short") == "short"


async def test_task_runs_a_child_agent_with_fresh_history_and_no_task_tool() -> None:
    model, look = RespondingModel(two_jobs), LookTool()
    gated: list[str] = []

    async def gate(req: GateRequest, signal: CancelSignal) -> GateBlock | None:
        gated.append(req.tool_call_id)
        return None

    agent = make_agent(model, look, ConcurrencyBudget(8), gate=gate)
    result = await asyncio.wait_for(agent.run("parent"), 5)
    assert result.stop_reason == "completed"
    assert result.text == "summary: answer a after saw a|answer b after saw b"
    child_requests = [r for r in model.requests if last_text(r).startswith("job")]
    assert len(child_requests) == 2
    for r in child_requests:
        assert len(r.messages) == 1  # fresh history
        assert [t["name"] for t in r.tools] == ["look"]  # no task: no recursion
    # children use the same gate, and it sees their calls under the namespaced id
    assert sorted(gated) == ["t1", "t1/l-a", "t2", "t2/l-b"]


async def test_task_calls_hold_no_budget_slot_so_a_budget_of_one_cannot_deadlock() -> None:
    model, look = RespondingModel(two_jobs), LookTool()
    budget = ConcurrencyBudget(1)
    result = await asyncio.wait_for(make_agent(model, look, budget).run("parent"), 5)
    assert result.text == "summary: answer a after saw a|answer b after saw b"
    assert look.max_running == 1 and budget.in_use == 0


async def test_cancelling_the_parent_cancels_the_child() -> None:
    def respond(request: ModelRequest) -> AssistantMessage:
        first = request.messages[0]
        assert isinstance(first, UserMessage)
        if len(request.messages) > 1:
            return AssistantMessage(text="unexpected second turn")
        if first.content[0] == TextBlock(text="parent"):
            return AssistantMessage(tool_calls=[task_call(1, "job")], stop_reason="tool_use")
        look = ToolCall(id="l1", name="look", arguments='{"what": "forever"}')
        return AssistantMessage(tool_calls=[look], stop_reason="tool_use")

    model, look = RespondingModel(respond), LookTool()
    agent = make_agent(model, look, ConcurrencyBudget(8))
    ctrl = CancelController()
    task = asyncio.ensure_future(agent.run("parent", ctrl.signal))
    await asyncio.wait_for(look.started.wait(), 5)
    ctrl.cancel("user")
    result = await asyncio.wait_for(task, 5)
    assert result.stop_reason == "aborted" and look.saw_cancel
    last = agent.history[-1]
    assert isinstance(last, ToolResultMessage)
    assert last.results[0].content == [
        TextBlock(text="Error: tool task threw: the sub-agent was interrupted before it finished")
    ]
    assert len(model.requests) == 2  # the parent's and the child's first; nothing after


async def test_a_failing_child_is_an_error_result_for_the_parent() -> None:
    def respond(request: ModelRequest) -> AssistantMessage:
        first = request.messages[0]
        assert isinstance(first, UserMessage)
        if first.content[0] != TextBlock(text="parent"):
            raise ModelError("endpoint down")
        if len(request.messages) == 1:
            return AssistantMessage(tool_calls=[task_call(1, "job")], stop_reason="tool_use")
        return AssistantMessage(text="parent done: " + last_text(request))

    agent = make_agent(RespondingModel(respond), LookTool(), ConcurrencyBudget(8))
    result = await asyncio.wait_for(agent.run("parent"), 5)
    assert result.text == "parent done: Error: tool task threw: the sub-agent failed: endpoint down"

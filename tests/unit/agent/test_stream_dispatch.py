"""Dispatch while streaming: safe calls that pass the gate unasked start as soon as they are
complete in the stream; the seed's ordering and refusal rules still hold exactly."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from agent_fakes import (
    CWD,
    BashTool,
    Board,
    GrepTool,
    ReadTool,
    Recorder,
    StreamedModel,
    call,
    reply,
)

from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.gate import GateBlock, GateRequest
from ink_ls.agent.loop import Agent, AgentOptions, RunResult
from ink_ls.core.messages import AssistantMessage, TextBlock, ToolResultMessage
from ink_ls.core.signal import NEVER, CancelController, CancelSignal
from ink_ls.core.tool import ToolRegistry
from ink_ls.model.base import ModelError

TRUNCATED = "the response hit the output token limit"


def make_agent(board: Board, model: StreamedModel, rec: Recorder, **kw: object) -> Agent:
    tools = ToolRegistry([cls(board) for cls in (ReadTool, GrepTool, BashTool)])
    gate = kw.pop("gate", None)
    options = AgentOptions(cwd=CWD, grace_seconds=kw.pop("grace", 5.0), **kw)  # type: ignore[arg-type]
    extra = {"gate": gate} if gate is not None else {}
    return Agent(model, tools, options, on_event=rec, budget=ConcurrencyBudget(8), **extra)  # type: ignore[arg-type]


def results_of(agent: Agent) -> list[str]:
    """The result texts of the first tool batch in history."""
    msg = next(m for m in agent.history if isinstance(m, ToolResultMessage))
    out = []
    for r in msg.results:
        assert isinstance(r.content[0], TextBlock)
        out.append(r.content[0].text)
    return out


def types(rec: Recorder) -> list[str]:
    return [
        f"{e.type}:{getattr(e, 'tool_call_id', '')}" if e.type.startswith("tool_") else e.type
        for e in rec.events
        if e.type != "text_delta"
    ]


async def _until(predicate: Callable[[], bool]) -> None:
    while not predicate():
        await asyncio.sleep(0)


def start(agent: Agent, signal: CancelSignal = NEVER) -> asyncio.Task[RunResult]:
    return asyncio.ensure_future(agent.run("go", signal))


async def test_safe_calls_start_mid_stream_and_results_come_in_call_order_after_it() -> None:
    board, rec, hold = Board(), Recorder(), asyncio.Event()
    a, b = call("read", "a"), call("grep", "b")
    model = StreamedModel([["look", a, b, hold, reply("look", a, b)], [reply("done")]])
    run = start(make_agent(board, model, rec))
    # both run while the model still holds the rest of the reply
    await board.wait_started("a", "b")
    assert model.holding.is_set()
    board.release("b", "a")
    for _ in range(20):
        await asyncio.sleep(0)
    # settled (completion order, for the UI), but nothing delivered before the reply is done
    assert "tool_settled:grep-b" in types(rec)
    assert not rec.of("tool_end") and "message_end" not in types(rec)
    hold.set()
    result = await asyncio.wait_for(run, 5)
    assert result.stop_reason == "completed"
    assert rec.of("tool_end") == ["read-a", "grep-b"]
    t = types(rec)
    assert t.index("tool_running:read-a") < t.index("message_end") < t.index("tool_end:read-a")
    assert rec.of("tool_start") == ["read-a", "grep-b"]


async def test_a_reply_cut_by_the_token_limit_after_two_started_calls_refuses_all() -> None:
    board, rec, hold = Board(), Recorder(), asyncio.Event()
    a, b, c = call("read", "a"), call("grep", "b"), call("read", "c", raw='{"key": "c')
    model = StreamedModel([[a, b, hold, reply("", a, b, c, stop="max_tokens")], [reply("ok")]])
    agent = make_agent(board, model, rec)
    run = start(agent)
    await board.wait_started("a", "b")
    board.release("b")  # one finishes before the cut is known, one is still running
    await asyncio.wait_for(_until(lambda: "end:b" in board.log), 5)
    hold.set()
    result = await asyncio.wait_for(run, 5)
    assert result.stop_reason == "completed"
    # the running call was cancelled (through its signal); neither result is delivered
    assert "stopped:a" in board.log
    texts = results_of(agent)
    assert len(texts) == 3 and all(TRUNCATED in t for t in texts)
    assert rec.of("tool_start") == [a.id, b.id, c.id]
    assert rec.of("tool_end") == [a.id, b.id, c.id]
    # what the user sees delivered is the refusal too, never what a started call returned
    ends = [e for e in rec.events if e.type == "tool_end"]
    assert all(e.is_error and TRUNCATED in e.model_dump_json() for e in ends)  # type: ignore[union-attr]
    assert sorted(rec.of("tool_settled")) == sorted([a.id, b.id])
    assert len(model.requests) == 2


async def test_a_cancel_mid_stream_cancels_started_calls_through_the_grace_path() -> None:
    board, rec, hold = Board(), Recorder(), asyncio.Event()
    board.ignore_cancel.add("b")
    a, b, c = call("read", "a"), call("grep", "b"), call("bash", "c")
    model = StreamedModel([["so", a, b, c, hold, reply("so", a, b, c)]])
    agent = make_agent(board, model, rec, grace=0.05)
    ctrl = CancelController()
    run = start(agent, ctrl.signal)
    await board.wait_started("a", "b")
    assert "start:c" not in board.log  # a serial call never starts early
    ctrl.cancel("user")
    result = await asyncio.wait_for(run, 5)
    assert result.stop_reason == "aborted"
    # the reply enters history with the calls that had started, each with its one result
    cut = agent.history[1]
    assert isinstance(cut, AssistantMessage) and cut.stop_reason == "aborted"
    assert [x.id for x in cut.tool_calls] == [a.id, b.id] and cut.text == "so"
    texts = results_of(agent)
    assert texts[0] == "stopped a"  # it honoured the cancel
    assert "did not respond to the interrupt within 0.05s" in texts[1]  # abandoned at grace
    assert rec.of("tool_end") == [a.id, b.id]
    assert "start:c" not in board.log
    assert [e.type for e in rec.events].count("run_end") == 1


async def test_an_invalid_call_between_two_valid_ones_is_refused_as_now() -> None:
    board, rec, hold = Board(), Recorder(), asyncio.Event()
    a, bad, c = call("read", "a"), call("read", id="bad", raw='{"key": 5}'), call("grep", "c")
    model = StreamedModel([[a, bad, c, hold, reply("", a, bad, c)], [reply("done")]])
    agent = make_agent(board, model, rec)
    run = start(agent)
    await board.wait_started("a", "c")  # the invalid call does not hold up the next one
    board.release("a", "c")
    hold.set()
    assert (await asyncio.wait_for(run, 5)).stop_reason == "completed"
    texts = results_of(agent)
    assert texts[0] == "read a" and texts[2] == "grep c"
    assert texts[1].startswith("Error: invalid arguments for read — /key:")
    assert rec.of("tool_end") == [a.id, "bad", c.id]
    assert "bad" not in rec.of("tool_running")


class AskFor:
    """A gate that asks (here: passes after recording) for the keys given; would_pass says so."""

    def __init__(self, *keys: str) -> None:
        self.keys = set(keys)
        self.asked: list[str] = []

    def would_pass(self, request: GateRequest) -> bool:
        return getattr(request.args, "key", "") not in self.keys

    async def __call__(self, request: GateRequest, signal: CancelSignal) -> GateBlock | None:
        if getattr(request.args, "key", "") in self.keys:
            self.asked.append(request.tool_call_id)
        return None


async def test_a_call_that_needs_approval_does_not_start_early_nor_anything_after_it() -> None:
    board, rec, hold = Board(auto=True), Recorder(), asyncio.Event()
    a, b, c = call("read", "a"), call("read", "b"), call("grep", "c")
    gate = AskFor("b")
    model = StreamedModel([[a, b, c, hold, reply("", a, b, c)], [reply("done")]])
    agent = make_agent(board, model, rec, gate=gate)
    run = start(agent)
    await board.wait_started("a")
    await asyncio.wait_for(model.holding.wait(), 5)
    for _ in range(20):
        await asyncio.sleep(0)
    assert "start:b" not in board.log and "start:c" not in board.log
    assert rec.of("tool_start") == [a.id] and not gate.asked
    hold.set()
    assert (await asyncio.wait_for(run, 5)).stop_reason == "completed"
    assert gate.asked == [b.id]  # asked after the reply, as before
    assert board.log.index("end:a") < board.log.index("start:b")
    assert rec.of("tool_end") == [a.id, b.id, c.id]


async def test_a_gate_without_would_pass_keeps_every_call_until_the_reply_ends() -> None:
    board, rec, hold = Board(auto=True), Recorder(), asyncio.Event()
    a = call("read", "a")

    async def gate(request: GateRequest, signal: CancelSignal) -> GateBlock | None:
        return None

    model = StreamedModel([[a, hold, reply("", a)], [reply("done")]])
    run = start(make_agent(board, model, rec, gate=gate))
    await asyncio.wait_for(model.holding.wait(), 5)
    for _ in range(20):
        await asyncio.sleep(0)
    assert not board.log and not rec.of("tool_start")
    hold.set()
    assert (await asyncio.wait_for(run, 5)).stop_reason == "completed"
    assert board.log == ["start:a", "end:a"]


async def test_the_window_limits_early_starts_too() -> None:
    board, rec, hold = Board(), Recorder(), asyncio.Event()
    calls = [call("read", k) for k in "abc"]
    model = StreamedModel([[*calls, hold, reply("", *calls)], [reply("done")]])
    run = start(make_agent(board, model, rec, max_parallel=2))
    await board.wait_started("a", "b")
    for _ in range(20):
        await asyncio.sleep(0)
    assert "start:c" not in board.log
    board.release("b")
    await board.wait_started("c")  # the freed place is refilled mid-stream
    board.release("a", "c")
    hold.set()
    assert (await asyncio.wait_for(run, 5)).stop_reason == "completed"
    assert board.max_running == 2
    assert rec.of("tool_end") == [c.id for c in calls]


async def test_a_model_error_mid_stream_stops_started_calls_and_keeps_them_out_of_history() -> None:
    board, rec = Board(), Recorder()
    a = call("read", "a")
    gone = asyncio.Event()

    async def drop() -> None:
        await board.wait_started("a")
        gone.set()

    helper = asyncio.ensure_future(drop())
    model = StreamedModel([[a, gone, ModelError("the connection dropped mid-reply")]])
    agent = make_agent(board, model, rec)
    result = await asyncio.wait_for(agent.run("go"), 5)
    await helper
    assert result.stop_reason == "error" and "dropped" in (result.error or "")
    assert "stopped:a" in board.log
    assert rec.of("tool_end") == [a.id]  # the user sees the call end
    end = next(e for e in rec.events if e.type == "tool_end")
    assert "the model reply failed" in end.model_dump_json()
    assert len(agent.history) == 1  # the failed reply and its call never enter history


async def test_nothing_starts_early_on_the_last_allowed_turn() -> None:
    board, rec, hold = Board(auto=True), Recorder(), asyncio.Event()
    a = call("read", "a")
    model = StreamedModel([[a, hold, reply("", a)]])
    run = start(make_agent(board, model, rec, max_turns=1))
    await asyncio.wait_for(model.holding.wait(), 5)
    for _ in range(20):
        await asyncio.sleep(0)
    assert not board.log
    hold.set()
    assert (await asyncio.wait_for(run, 5)).stop_reason == "max_iterations"
    assert not board.log

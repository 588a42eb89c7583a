"""The agent loop driven by a scripted model: events, stop reasons, limits, and the
invariant that every tool call in history has exactly one result."""

from __future__ import annotations

import asyncio

from agent_fakes import (
    CWD,
    BashTool,
    Board,
    ReadTool,
    Recorder,
    ScriptedModel,
    call,
    hang,
    reply,
)

from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.gate import GateBlock, GateRequest
from ink_ls.agent.loop import Agent, AgentOptions
from ink_ls.core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolResultMessage,
    UserMessage,
)
from ink_ls.core.signal import CancelController, CancelSignal
from ink_ls.core.tool import ToolRegistry
from ink_ls.model.base import ModelError, ModelRequest

TRUNCATED = (
    'Tool call "read" was not executed: the response hit the output token limit, so its'
    " arguments may be truncated. Re-issue the tool call with complete arguments."
)


def make_agent(model: ScriptedModel, board: Board, rec: Recorder, **kw: object) -> Agent:
    options = AgentOptions(cwd=CWD, system_prompt="be brief", grace_seconds=0.3)
    for key in ("max_turns",):
        if key in kw:
            setattr(options, key, kw.pop(key))
    tools = ToolRegistry([ReadTool(board), BashTool(board)])
    return Agent(model, tools, options, on_event=rec, budget=ConcurrencyBudget(8), **kw)  # type: ignore[arg-type]


def assert_paired(history: list[Message]) -> None:
    """Every tool call has exactly one result, in the next message, in call order."""
    for i, m in enumerate(history):
        if isinstance(m, AssistantMessage) and m.tool_calls:
            nxt = history[i + 1]
            assert isinstance(nxt, ToolResultMessage)
            assert [r.tool_call_id for r in nxt.results] == [c.id for c in m.tool_calls]
        if isinstance(m, ToolResultMessage):
            prev = history[i - 1]
            assert isinstance(prev, AssistantMessage) and prev.tool_calls


def result_texts(m: Message) -> list[str]:
    assert isinstance(m, ToolResultMessage)
    return [b.text for r in m.results for b in r.content if isinstance(b, TextBlock)]


async def test_a_run_streams_text_runs_tools_and_completes() -> None:
    board, rec = Board(auto=True), Recorder()
    model = ScriptedModel(
        [
            reply("Let me look.", call("read", "README.md"), call("read", "setup.py"), tokens=2),
            reply("Run `make dev`.", tokens=3),
        ]
    )
    persisted: list[Message] = []
    agent = make_agent(model, board, rec, on_message=persisted.append)
    result = await agent.run("how do I start it?")
    assert (result.stop_reason, result.text, result.error) == ("completed", "Run `make dev`.", None)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (5, 5)
    assert [m.role for m in agent.history] == ["user", "assistant", "toolResult", "assistant"]
    assert persisted == agent.history
    assert result_texts(agent.history[2]) == ["read README.md", "read setup.py"]
    deltas = "".join(e.text for e in rec.events if e.type == "text_delta")  # type: ignore[union-attr]
    assert deltas == "Let me look.Run `make dev`."
    kinds = [e.type for e in rec.events if e.type in ("message_end", "run_end")]
    assert kinds == ["message_end", "message_end", "run_end"]
    assert rec.events[-1].type == "run_end"
    # The model saw the system prompt, the whole history, and the tool schemas.
    second = model.requests[1]
    assert second.system == "be brief" and len(second.messages) == 3
    assert [t["name"] for t in second.tools] == ["read", "bash"]


async def test_a_user_message_with_blocks_is_accepted() -> None:
    board, rec = Board(auto=True), Recorder()
    agent = make_agent(ScriptedModel([reply("hi")]), board, rec)
    msg = UserMessage(content=[TextBlock(text="hello")])
    result = await agent.run(msg)
    assert result.text == "hi" and agent.history[0] == msg


async def test_model_error_ends_the_run_with_error_and_a_valid_history() -> None:
    board, rec = Board(auto=True), Recorder()
    model = ScriptedModel([reply("", call("read", "a")), ModelError("endpoint returned 503")])
    agent = make_agent(model, board, rec)
    result = await agent.run("go")
    assert (result.stop_reason, result.error) == ("error", "endpoint returned 503")
    assert_paired(agent.history)
    end = rec.events[-1]
    assert end.type == "run_end" and end.error == "endpoint returned 503"  # type: ignore[union-attr]


async def test_cancel_during_the_model_stream_aborts_without_further_requests() -> None:
    board, rec = Board(auto=True), Recorder()
    model = ScriptedModel([hang, reply("never")])
    agent = make_agent(model, board, rec)
    ctrl = CancelController()
    task = asyncio.ensure_future(agent.run("go", ctrl.signal))
    await asyncio.wait_for(model.request_seen.wait(), 5)
    ctrl.cancel("user")
    result = await asyncio.wait_for(task, 2)
    assert result.stop_reason == "aborted"
    assert len(model.requests) == 1
    assert [m.role for m in agent.history] == ["user"]
    assert rec.events[-1].type == "run_end"


async def test_cancel_during_tools_aborts_after_the_batch_with_every_call_answered() -> None:
    board, rec = Board(ignore_cancel={"hung"}), Recorder()
    model = ScriptedModel(
        [reply("", call("read", "ok"), call("read", "hung"), call("bash", "later")), reply("x")]
    )
    agent = make_agent(model, board, rec)
    ctrl = CancelController()
    task = asyncio.ensure_future(agent.run("go", ctrl.signal))
    await board.wait_started("ok", "hung")
    board.release("ok")
    await asyncio.sleep(0)
    ctrl.cancel()
    result = await asyncio.wait_for(task, 5)
    assert result.stop_reason == "aborted"
    assert len(model.requests) == 1
    assert_paired(agent.history)
    assert result_texts(agent.history[-1]) == [
        "read ok",
        "Tool read did not respond to the interrupt within 0.3s — result abandoned;"
        " the underlying process may still be running.",
        "(interrupted before this tool ran)",
    ]


async def test_a_reply_cut_at_the_token_limit_has_its_whole_batch_refused_without_the_gate() -> (
    None
):
    board, rec = Board(auto=True), Recorder()
    asked: list[str] = []

    async def gate(req: GateRequest, signal: CancelSignal) -> GateBlock | None:
        asked.append(req.tool_call_id)
        return None

    model = ScriptedModel(
        [
            reply("", call("read", "a"), call("read", "b"), stop="max_tokens"),
            reply("", call("read", "a")),
            reply("done"),
        ]
    )
    agent = make_agent(model, board, rec, gate=gate)
    result = await agent.run("go")
    assert result.stop_reason == "completed"
    assert result_texts(agent.history[2]) == [TRUNCATED, TRUNCATED]
    assert all(r.is_error for r in agent.history[2].results)  # type: ignore[union-attr]
    assert asked == ["read-a"] and board.log == ["start:a", "end:a"]  # only the re-issued call
    assert_paired(agent.history)


async def test_max_turns_closes_unexecuted_calls_and_stops_with_max_iterations() -> None:
    board, rec = Board(auto=True), Recorder()
    model = ScriptedModel([reply("", call("read", "1")), reply("", call("read", "2"))])
    agent = make_agent(model, board, rec, max_turns=2)
    result = await agent.run("loop forever")
    assert result.stop_reason == "max_iterations"
    assert len(model.requests) == 2
    assert board.log == ["start:1", "end:1"]
    assert result_texts(agent.history[-1]) == ["(not executed: reached max turns)"]
    assert_paired(agent.history)
    assert rec.of("tool_end")[-1] == "read-2"


async def test_a_run_started_with_a_cancelled_signal_makes_no_request() -> None:
    board, rec = Board(auto=True), Recorder()

    async def slow_done(request: ModelRequest, signal: CancelSignal) -> AssistantMessage:
        await asyncio.Event().wait()
        raise AssertionError

    model = ScriptedModel([slow_done])
    agent = make_agent(model, board, rec)
    ctrl = CancelController()
    ctrl.cancel()
    result = await asyncio.wait_for(agent.run("go", ctrl.signal), 2)
    assert result.stop_reason == "aborted" and model.requests == []


async def test_a_second_concurrent_run_is_refused() -> None:
    board, rec = Board(auto=True), Recorder()
    model = ScriptedModel([hang])
    agent = make_agent(model, board, rec)
    ctrl = CancelController()
    task = asyncio.ensure_future(agent.run("one", ctrl.signal))
    await asyncio.wait_for(model.request_seen.wait(), 5)
    try:
        await agent.run("two")
    except RuntimeError as exc:
        assert "already running" in str(exc)
    else:
        raise AssertionError("a second run must be refused")
    ctrl.cancel()
    assert (await asyncio.wait_for(task, 2)).stop_reason == "aborted"


async def test_history_resumes_across_runs() -> None:
    board, rec = Board(auto=True), Recorder()
    model = ScriptedModel([reply("first"), reply("second")])
    agent = make_agent(model, board, rec)
    await agent.run("one")
    result = await agent.run("two")
    assert result.text == "second"
    assert [m.role for m in model.requests[1].messages] == ["user", "assistant", "user"]


async def test_truncated_replies_still_count_against_max_turns() -> None:
    board, rec = Board(auto=True), Recorder()
    cut = [reply("", call("read", str(i)), stop="max_tokens") for i in range(3)]
    model = ScriptedModel([*cut, reply("never")])
    agent = make_agent(model, board, rec, max_turns=2)
    result = await agent.run("go")
    assert result.stop_reason == "max_iterations" and len(model.requests) == 2
    assert result_texts(agent.history[-1]) == [TRUNCATED]
    assert_paired(agent.history)


async def test_cancelling_the_run_task_itself_still_leaves_a_paired_history() -> None:
    board, rec = Board(), Recorder()
    model = ScriptedModel([reply("", call("read", "a"), call("bash", "b"))])
    agent = make_agent(model, board, rec)
    task = asyncio.ensure_future(agent.run("go"))
    await board.wait_started("a")
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the run must propagate its own cancellation")
    assert_paired(agent.history)
    assert result_texts(agent.history[-1]) == ["(interrupted before this tool ran)"] * 2
    assert rec.events[-1].type == "run_end" and rec.events[-1].stop_reason == "aborted"  # type: ignore[union-attr]
    await asyncio.sleep(0)
    assert board.running == 0  # no orphaned tool task

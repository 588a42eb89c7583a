"""The batch scheduler: serial barriers, the sliding window, event order, gates."""

from __future__ import annotations

import asyncio

from agent_fakes import (
    CWD,
    BashTool,
    Board,
    DefaultTool,
    GrepTool,
    ReadTool,
    Recorder,
    call,
)

from ink_ls.agent.gate import GateBlock, GateRequest
from ink_ls.agent.pipeline import CallResult
from ink_ls.agent.scheduler import BatchEnv, run_batch
from ink_ls.core.messages import TextBlock, ToolCall
from ink_ls.core.signal import NEVER, CancelController, CancelSignal
from ink_ls.core.tool import ToolRegistry


def make_env(board: Board, rec: Recorder, **kw: object) -> BatchEnv:
    tools = ToolRegistry([cls(board) for cls in (ReadTool, GrepTool, BashTool, DefaultTool)])
    return BatchEnv(tools=tools, cwd=CWD, on_event=rec, **kw)  # type: ignore[arg-type]


def launch(
    calls: list[ToolCall], env: BatchEnv, signal: CancelSignal = NEVER
) -> asyncio.Task[list[CallResult]]:
    return asyncio.ensure_future(run_batch(calls, env, signal))


async def spin(n: int = 20) -> None:
    """Let every ready task run (yields only; no wall-clock wait)."""
    for _ in range(n):
        await asyncio.sleep(0)


def texts(results: list[CallResult]) -> list[str]:
    out = []
    for r in results:
        assert isinstance(r.content[0], TextBlock)
        out.append(r.content[0].text)
    return out


async def test_default_tools_run_strictly_serially() -> None:
    board, rec = Board(), Recorder()
    task = launch([call("plain", k) for k in "abc"], make_env(board, rec))
    await board.wait_started("a")
    await spin()
    assert board.log == ["start:a"]
    board.release("a")
    await board.wait_started("b")
    await spin()
    assert board.log == ["start:a", "end:a", "start:b"]
    board.release("b", "c")
    results = await asyncio.wait_for(task, 5)
    assert board.log == ["start:a", "end:a", "start:b", "end:b", "start:c", "end:c"]
    assert board.max_running == 1
    assert texts(results) == ["plain a", "plain b", "plain c"]
    assert rec.trace() == [
        f"{kind}:plain-{k}"
        for k in "abc"
        for kind in ("tool_start", "tool_running", "tool_settled", "tool_end")
    ]


async def test_safe_calls_overlap_while_tool_end_and_results_keep_call_order() -> None:
    board, rec = Board(), Recorder()
    task = launch([call("read", k) for k in "abc"], make_env(board, rec))
    await board.wait_started("a", "b", "c")
    assert board.running == 3
    board.release("c")
    await spin()
    board.release("b")
    await spin()
    assert rec.of("tool_end") == []
    board.release("a")
    results = await asyncio.wait_for(task, 5)
    assert rec.of("tool_settled") == ["read-c", "read-b", "read-a"]
    assert rec.of("tool_end") == ["read-a", "read-b", "read-c"]
    assert [r.tool_call_id for r in results] == ["read-a", "read-b", "read-c"]


async def test_six_safe_calls_issue_six_starts_five_runnings_and_the_sixth_fills_a_free_slot() -> (
    None
):
    board, rec = Board(), Recorder()
    task = launch([call("read", k) for k in "abcdef"], make_env(board, rec))
    await board.wait_started(*"abcde")
    await spin()
    assert len(rec.of("tool_start")) == 6
    assert rec.of("tool_running") == [f"read-{k}" for k in "abcde"]
    assert "start:f" not in board.log
    board.release("c")
    await board.wait_started("f")
    trace = rec.trace()
    assert trace.index("tool_settled:read-c") < trace.index("tool_running:read-f")
    assert board.max_running == 5
    board.release(*"abdef")
    await asyncio.wait_for(task, 5)
    assert rec.of("tool_end") == [f"read-{k}" for k in "abcdef"]


async def test_slow_first_call_does_not_hold_the_window_but_holds_delivery() -> None:
    board, rec = Board(), Recorder()
    task = launch([call("read", k) for k in "ABCDEFG"], make_env(board, rec))
    await board.wait_started(*"ABCDE")
    board.release("B")
    await board.wait_started("F")
    assert rec.of("tool_settled") == ["read-B"]
    assert rec.of("tool_end") == []
    board.release(*"CDEFG")
    await board.wait_started("G")
    await spin()
    assert set(rec.of("tool_settled")) == {f"read-{k}" for k in "BCDEFG"}
    assert rec.of("tool_end") == [] and "end:A" not in board.log
    board.release("A")
    await asyncio.wait_for(task, 5)
    assert rec.of("tool_end") == [f"read-{k}" for k in "ABCDEFG"]


async def test_settle_order_b_a_c_delivers_a_b_c_by_prefix_flush() -> None:
    board, rec = Board(), Recorder()
    task = launch([call("read", k) for k in "abc"], make_env(board, rec))
    await board.wait_started(*"abc")
    board.release("b")
    await spin()
    assert rec.of("tool_end") == []
    board.release("a")
    await spin()
    assert rec.of("tool_end") == ["read-a", "read-b"]  # flushed before c finished
    board.release("c")
    await asyncio.wait_for(task, 5)
    assert rec.of("tool_settled") == ["read-b", "read-a", "read-c"]
    assert rec.of("tool_end") == ["read-a", "read-b", "read-c"]


async def test_gates_run_serially_in_call_order_before_any_execution() -> None:
    board, rec = Board(auto=True), Recorder()
    answers = {k: asyncio.Event() for k in "abc"}
    entered: list[str] = []

    async def gate(req: GateRequest, signal: CancelSignal) -> GateBlock | None:
        key = req.args.key  # type: ignore[attr-defined]
        entered.append(key)
        await answers[key].wait()
        board.log.append(f"gate-done:{key}")
        return None

    task = launch([call("read", k) for k in "abc"], make_env(board, rec, gate=gate))
    await spin()
    assert entered == ["a"]
    answers["b"].set()  # answering out of order does not let b's gate run early
    await spin()
    assert entered == ["a"]
    answers["a"].set()
    await spin()
    assert entered == ["a", "b", "c"] and board.log == ["gate-done:a", "gate-done:b"]
    answers["c"].set()
    await asyncio.wait_for(task, 5)
    assert board.log[:3] == ["gate-done:a", "gate-done:b", "gate-done:c"]
    assert sorted(board.log[3:]) == sorted(f"{e}:{k}" for k in "abc" for e in ("start", "end"))


async def test_a_blocked_middle_call_keeps_its_place_and_takes_no_slot() -> None:
    board, rec = Board(auto=True), Recorder()

    async def gate(req: GateRequest, signal: CancelSignal) -> GateBlock | None:
        return GateBlock("user", "no") if req.tool_call_id == "read-b" else None

    results = await run_batch(
        [call("read", k) for k in "abc"], make_env(board, rec, gate=gate, max_parallel=2)
    )
    assert texts(results) == ["read a", 'Tool "read" blocked by user: no', "read c"]
    assert rec.of("tool_end") == ["read-a", "read-b", "read-c"]
    assert rec.of("tool_running") == ["read-a", "read-c"]
    assert "start:b" not in board.log


async def test_a_schema_refused_call_in_a_chunk_gets_no_settle_but_a_tool_end() -> None:
    board, rec = Board(auto=True), Recorder()
    calls = [call("read", "a"), call("read", id="read-b", raw='{"key": 1}'), call("read", "c")]
    results = await run_batch(calls, make_env(board, rec))
    assert results[1].is_error and texts(results)[1].startswith(
        "Error: invalid arguments for read — /key: Input should be a valid string."
    )
    assert rec.of("tool_start") == ["read-a", "read-b", "read-c"]
    assert rec.of("tool_settled") == ["read-a", "read-c"]
    assert rec.of("tool_end") == ["read-a", "read-b", "read-c"]


async def test_a_serial_call_is_a_barrier_nothing_jumps() -> None:
    board, rec = Board(), Recorder()
    calls = [call("read", "A"), call("grep", "B"), call("bash", "C"), call("read", "D")]
    task = launch(calls, make_env(board, rec))
    await board.wait_started("A", "B")
    await spin()
    assert sorted(board.log) == ["start:A", "start:B"]
    board.release("A")
    await spin()
    assert "start:C" not in board.log
    board.release("B")
    await board.wait_started("C")
    await spin()
    assert "start:D" not in board.log
    board.release("C")
    await board.wait_started("D")
    board.release("D")
    await asyncio.wait_for(task, 5)
    assert board.log[2:] == ["end:A", "end:B", "start:C", "end:C", "start:D", "end:D"]
    # D's tool_start comes only after the barrier: it belongs to a later chunk.
    trace = rec.trace()
    assert trace.index("tool_end:bash-C") < trace.index("tool_start:read-D")


async def test_abort_mid_window_running_calls_settle_and_queued_ones_never_run() -> None:
    board, rec = Board(), Recorder()
    ctrl = CancelController()
    task = launch([call("read", k) for k in "abcdefgh"], make_env(board, rec), ctrl.signal)
    await board.wait_started(*"abcde")
    board.release("b")
    await board.wait_started("f")
    ctrl.cancel("stop")
    results = await asyncio.wait_for(task, 5)
    assert texts(results) == [
        "stopped a",
        "read b",
        "stopped c",
        "stopped d",
        "stopped e",
        "stopped f",
        "(interrupted before this tool ran)",
        "(interrupted before this tool ran)",
    ]
    assert all(r.is_error for i, r in enumerate(results) if i != 1)
    assert rec.of("tool_running") == [f"read-{k}" for k in "abcdef"]
    assert sorted(rec.of("tool_settled")) == [f"read-{k}" for k in "abcdef"]
    assert rec.of("tool_end") == [f"read-{k}" for k in "abcdefgh"]
    assert "start:g" not in board.log and "start:h" not in board.log


async def test_a_cancel_before_the_batch_runs_nothing() -> None:
    board, rec = Board(auto=True), Recorder()
    ctrl = CancelController()
    ctrl.cancel()
    results = await run_batch(
        [call("read", "a"), call("bash", "b")], make_env(board, rec), ctrl.signal
    )
    assert texts(results) == ["(interrupted before this tool ran)"] * 2
    assert board.log == [] and rec.of("tool_running") == []
    assert rec.of("tool_end") == ["read-a", "bash-b"]


async def test_a_broken_event_listener_does_not_break_the_batch() -> None:
    board = Board(auto=True)

    def sink(event: object) -> None:
        raise RuntimeError("listener bug")

    env = make_env(board, Recorder())
    env.on_event = sink  # type: ignore[assignment]
    results = await run_batch([call("read", "a"), call("bash", "b")], env)
    assert texts(results) == ["read a", "bash b"]


async def test_a_large_chunk_only_has_tasks_for_its_window() -> None:
    seen: list[int] = []

    class Count(ReadTool):  # type: ignore[valid-type,misc]
        name = "count"

        async def execute(self, args, signal, context):  # type: ignore[no-untyped-def]
            seen.append(len(asyncio.all_tasks()))
            await asyncio.sleep(0)
            return await super().execute(args, signal, context)

    board, rec = Board(auto=True), Recorder()
    env = BatchEnv(tools=ToolRegistry([Count(board)]), cwd=CWD, on_event=rec)
    baseline = len(asyncio.all_tasks())
    results = await run_batch([call("count", str(k)) for k in range(1000)], env)
    assert len(results) == 1000
    assert max(seen) == baseline + 5  # the window is full, and no task waits outside it
    assert rec.of("tool_end") == [f"count-{k}" for k in range(1000)]

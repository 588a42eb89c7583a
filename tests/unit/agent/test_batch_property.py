"""Property test: random batches, cancelled at random points, always leave a paired history,
deliver `tool_end` once per call in call order, and respect the window and the barriers."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from agent_fakes import CWD, Recorder, ScriptedModel, reply
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.gate import GateBlock, GateRequest
from ink_ls.agent.loop import Agent, AgentOptions
from ink_ls.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage
from ink_ls.core.signal import CancelController, CancelSignal
from ink_ls.core.tool import Tool, ToolContext, ToolParams, ToolRegistry, ToolResult

INTERRUPTED = "(interrupted before this tool ran)"


class StepParams(ToolParams):
    steps: int = Field(description="event-loop turns the call takes")
    hang: bool = Field(default=False, description="ignore the cancel and never finish")
    block: bool = Field(default=False, description="the gate refuses this call")


@dataclass
class Watch:
    running: set[str] = field(default_factory=set)
    serial_running: bool = False
    max_running: int = 0
    violations: list[str] = field(default_factory=list)


class StepTool(Tool[StepParams]):
    name = "safe"
    description = "steps"
    params_model = StepParams
    concurrency_safe = True

    def __init__(self, watch: Watch) -> None:
        self.watch = watch

    async def execute(
        self, args: StepParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        w, me = self.watch, context.tool_call_id
        if w.serial_running or (not self.concurrency_safe and w.running):
            w.violations.append(f"{me} overlapped a serial call")
        w.running.add(me)
        w.serial_running = not self.concurrency_safe
        w.max_running = max(w.max_running, len(w.running))
        try:
            if args.hang:
                await asyncio.Event().wait()
            for _ in range(args.steps):
                if signal.cancelled:
                    return ToolResult(output="stopped", is_error=True)
                await asyncio.sleep(0)
            return ToolResult(output=f"done {me}")
        finally:
            w.running.discard(me)
            if not self.concurrency_safe:
                w.serial_running = False


class SerialStepTool(StepTool):
    name = "serial"
    concurrency_safe = False


call_spec = st.tuples(
    st.sampled_from(["safe", "safe", "serial", "nope", "bad"]),
    st.integers(0, 6),
    st.booleans(),
    st.integers(0, 9),
)


@given(
    specs=st.lists(call_spec, min_size=1, max_size=10),
    cancel_after=st.one_of(st.none(), st.integers(0, 80)),
)
@settings(max_examples=120, deadline=None)
def test_random_batches_cancelled_anywhere_keep_pairing_and_order(
    specs: list[tuple[str, int, bool, int]], cancel_after: int | None
) -> None:
    asyncio.run(_scenario(specs, cancel_after))


async def _scenario(specs: list[tuple[str, int, bool, int]], cancel_after: int | None) -> None:
    calls: list[ToolCall] = []
    for i, (kind, steps, hang, roll) in enumerate(specs):
        args: object = {
            "steps": steps,
            "hang": hang and cancel_after is not None,
            "block": roll == 0,
        }
        name = kind
        if kind == "bad":
            name, args = "safe", {"steps": "many"}
        elif kind == "nope":
            args = {}
        calls.append(ToolCall(id=f"c{i}", name=name, arguments=json.dumps(args)))

    async def gate(req: GateRequest, signal: CancelSignal) -> GateBlock | None:
        await asyncio.sleep(0)
        return GateBlock("policy") if getattr(req.args, "block", False) else None

    watch, rec = Watch(), Recorder()
    model = ScriptedModel([reply("", *calls), reply("done")])
    agent = Agent(
        model,
        ToolRegistry([StepTool(watch), SerialStepTool(watch)]),
        AgentOptions(cwd=CWD, grace_seconds=0.01, max_parallel=3),
        gate=gate,
        on_event=rec,
        budget=ConcurrencyBudget(8),
    )
    ctrl = CancelController()

    async def canceller() -> None:
        assert cancel_after is not None
        for _ in range(cancel_after):
            await asyncio.sleep(0)
        ctrl.cancel("random point")

    killer = asyncio.ensure_future(canceller()) if cancel_after is not None else None
    result = await asyncio.wait_for(agent.run("go", ctrl.signal), 10)
    if killer is not None:
        await killer

    assert not watch.violations
    assert watch.max_running <= 3
    history = agent.history
    # Pairing: every assistant tool call is answered, once, in the next message, in order.
    for i, m in enumerate(history):
        if isinstance(m, AssistantMessage) and m.tool_calls:
            nxt = history[i + 1]
            assert isinstance(nxt, ToolResultMessage)
            assert [r.tool_call_id for r in nxt.results] == [c.id for c in m.tool_calls]
    ids = [c.id for c in calls]
    executed_batch = len(history) >= 2
    if executed_batch:
        assert rec.of("tool_end") == ids
        assert rec.of("tool_start") == ids
        running, settled = rec.of("tool_running"), rec.of("tool_settled")
        assert sorted(running) == sorted(settled) and len(set(running)) == len(running)
        trace = rec.trace()
        for cid in running:
            assert (
                trace.index(f"tool_start:{cid}")
                < trace.index(f"tool_running:{cid}")
                < trace.index(f"tool_settled:{cid}")
                < trace.index(f"tool_end:{cid}")
            )
        results = history[2]
        assert isinstance(results, ToolResultMessage)
        for r, spec in zip(results.results, specs, strict=True):
            text = "".join(b.text for b in r.content if isinstance(b, TextBlock))
            if text == INTERRUPTED:
                assert r.tool_call_id not in running
            if "did not respond to the interrupt" in text:
                assert spec[2], "only hung calls are abandoned"
    if cancel_after is None:
        assert result.stop_reason == "completed"
        assert all(
            "interrupted" not in e.model_dump_json() for e in rec.events if e.type == "tool_end"
        )
    else:
        assert result.stop_reason in ("aborted", "completed")
        if result.stop_reason == "aborted" and isinstance(history[-1], ToolResultMessage):
            assert len(model.requests) == 1, "no model request after a cancelled batch"
    assert [e.type for e in rec.events].count("run_end") == 1

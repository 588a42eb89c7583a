"""The language server with `model.provider` set to Anthropic or OpenAI Responses, against
real-shaped byte streams on loopback: a thinking tool-calling turn whose follow-up carries the
thinking exactly, cached tokens in the usage update, a cancel mid-stream, a 429 honoured."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from ink_ls.protocol import methods
from tests.e2e._providers import ANSWER, CALL_ID, SCENARIOS, SUMMARY, THOUGHT, Scenario
from tests.e2e.conftest import SECRET, WAIT, Starter
from tests.fakes.model_server import FakeModelServer


@pytest.fixture(params=SCENARIOS, ids=lambda s: s.provider)
def scenario(request: pytest.FixtureRequest) -> Scenario:
    chosen: Scenario = request.param
    return chosen


def settings(model: FakeModelServer, scenario: Scenario) -> dict[str, Any]:
    return {
        "model": {
            "baseUrl": model.base_url,
            "model": "fake-model",
            "apiKey": SECRET,
            "provider": scenario.provider,
        },
        "approval": "auto",
    }


async def test_a_thinking_tool_turn_ends_with_the_exact_answer(
    start: Starter, model: FakeModelServer, scenario: Scenario
) -> None:
    client = await start(ink=settings(model, scenario))
    model.push(scenario.tool_turn(), scenario.answer())
    result = await client.prompt("how do I start the project?")
    assert (result["stopReason"], result["text"]) == ("end_turn", ANSWER)
    assert model.paths == [scenario.path, scenario.path]
    scenario.check_follow_up(model.requests[1], model.bodies[1])
    thought = THOUGHT if scenario.provider == "anthropic" else SUMMARY
    shown = [u["update"] for u in client.updates if u["update"]["sessionUpdate"] == "thinking"]
    assert "".join(u["content"]["text"] for u in shown) == thought
    calls = client.tool_updates(CALL_ID[scenario.provider])
    assert calls and calls[-1].get("status") == "completed"
    usage = [u["update"] for u in client.updates if u["update"]["sessionUpdate"] == "usage_update"]
    tokens_in, cached, tokens_out = scenario.usage
    last = usage[-1]
    assert (last["inputTokens"], last["cacheReadTokens"], last["outputTokens"]) == (
        tokens_in,
        cached,
        tokens_out,
    )


async def test_cancel_mid_stream_closes_the_connection_and_ends_cancelled(
    start: Starter, model: FakeModelServer, scenario: Scenario
) -> None:
    client = await start(ink=settings(model, scenario))
    hold = threading.Event()
    model.push(scenario.answer(hold))
    task = asyncio.ensure_future(client.prompt("how do I start the project?"))
    await client.wait_for(lambda: "agent_message_chunk" in client.kinds())
    await asyncio.to_thread(model.wait_holding)
    session_id = str(client.updates[-1]["sessionId"])
    assert await client.ink(methods.SESSION_CANCEL, {"sessionId": session_id}) is None
    result = await asyncio.wait_for(task, WAIT)
    assert result["stopReason"] == "cancelled"

    def saw_disconnect() -> bool:
        with model._cond:
            return model._cond.wait_for(lambda: model.disconnects >= 1, timeout=WAIT)

    assert await asyncio.to_thread(saw_disconnect), "the model connection stayed open"
    hold.set()


async def test_a_429_with_retry_after_is_retried(
    start: Starter, model: FakeModelServer, scenario: Scenario
) -> None:
    client = await start(ink=settings(model, scenario))
    model.push(scenario.rate_limited(), scenario.answer())
    result = await client.prompt("how do I start the project?")
    assert (result["stopReason"], result["text"]) == ("end_turn", ANSWER)
    assert len(model.requests) == 2

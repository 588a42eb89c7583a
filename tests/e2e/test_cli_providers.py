"""`ink-ls run` against Anthropic's Messages API and OpenAI's Responses API, replayed as
real-shaped byte streams on loopback: a thinking tool-calling turn, the follow-up that carries
the thinking exactly, a cancel mid-stream, a 429 honoured, cached tokens in the usage line."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e._providers import ANSWER, CALL_ID, SCENARIOS, SUMMARY, THOUGHT, Scenario
from tests.e2e.test_cli_run import WAIT, Run, env, fake, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.model_server import FakeModelServer

SECRET = "sk-e2e-cli-secret-0042"


@pytest.fixture(params=SCENARIOS, ids=lambda s: s.provider)
def scenario(request: pytest.FixtureRequest, env: dict[str, str]) -> Scenario:  # noqa: F811
    chosen: Scenario = request.param
    env["INK_PROVIDER"] = chosen.provider
    return chosen


async def test_a_thinking_tool_turn_reads_the_file_and_answers(
    ink: Callable[..., Any],  # noqa: F811
    fake: FakeModelServer,  # noqa: F811
    scenario: Scenario,
) -> None:
    fake.push(scenario.tool_turn(), scenario.answer())
    run: Run = await ink("--json", "how do I start the project?")
    assert await run.finish() == 0, run.stderr
    assert fake.paths == [scenario.path, scenario.path]
    end = run.events[-1]
    assert (end["type"], end["stop_reason"], end["text"]) == ("run_end", "completed", ANSWER)
    thought = THOUGHT if scenario.provider == "anthropic" else SUMMARY
    deltas = [e["text"] for e in run.events if e["type"] == "thinking_delta"]
    assert "".join(deltas) == thought
    tool_end = next(e for e in run.events if e["type"] == "tool_end")
    assert tool_end["tool_call_id"] == CALL_ID[scenario.provider]
    assert tool_end["is_error"] is False
    scenario.check_follow_up(fake.requests[1], fake.bodies[1])
    headers = fake.request_headers[0]
    if scenario.provider == "anthropic":
        assert headers["x-api-key"] == SECRET and "Authorization" not in headers
        assert headers["anthropic-version"] == "2023-06-01"
    else:
        assert headers["Authorization"] == f"Bearer {SECRET}"


async def test_the_usage_line_counts_cached_tokens_once_per_reply(
    ink: Callable[..., Any],  # noqa: F811
    fake: FakeModelServer,  # noqa: F811
    scenario: Scenario,
) -> None:
    fake.push(scenario.tool_turn(), scenario.answer())
    run = await ink("--approval", "readonly", "how do I start the project?")
    out, err = await asyncio.wait_for(run.proc.communicate(), WAIT)
    assert run.proc.returncode == 0, err.decode()
    assert out.decode().splitlines()[-1] == ANSWER
    tokens_in, cached, tokens_out = scenario.usage
    lines = err.decode().splitlines()
    thought = THOUGHT.strip() if scenario.provider == "anthropic" else SUMMARY
    assert any(thought in line for line in lines), lines  # the thinking is shown, dim
    summary = next(line for line in lines if line.startswith("completed · "))
    assert summary.startswith(
        f"completed · {tokens_in:,} tokens in ({cached:,} cached), {tokens_out:,} out · "
    ), summary


async def test_ctrl_c_mid_stream_closes_the_connection_and_aborts(
    ink: Callable[..., Any],  # noqa: F811
    fake: FakeModelServer,  # noqa: F811
    scenario: Scenario,
) -> None:
    hold = threading.Event()
    fake.push(scenario.answer(hold))
    run: Run = await ink("--json", "how do I start the project?")
    await run.until(lambda e: e["type"] == "text_delta")
    await asyncio.to_thread(fake.wait_holding)
    run.proc.send_signal(signal.SIGINT)
    assert await run.finish() == 130
    assert run.events[-1]["type"] == "run_end"
    assert run.events[-1]["stop_reason"] == "aborted"

    def saw_disconnect() -> bool:
        with fake._cond:
            return fake._cond.wait_for(lambda: fake.disconnects >= 1, timeout=WAIT)

    assert await asyncio.to_thread(saw_disconnect), "the model connection stayed open"
    assert len(fake.requests) == 1


async def test_a_429_with_retry_after_is_retried_after_the_wait(
    ink: Callable[..., Any],  # noqa: F811
    fake: FakeModelServer,  # noqa: F811
    scenario: Scenario,
) -> None:
    fake.push(scenario.rate_limited(), scenario.answer())
    run: Run = await ink("--json", "how do I start the project?")
    assert await run.finish() == 0, run.stderr
    assert run.events[-1]["text"] == ANSWER
    assert len(fake.requests) == 2
    assert "HTTP 429); retrying in 1.0 s (retry 1 of 3)" in run.stderr

"""`ink-ls run` against each server's own stream dialect, replayed byte for byte on loopback:
the tool runs with the right arguments, the follow-up request carries what the provider
requires (the fake refuses it with the provider's HTTP 400 otherwise), the reasoning is shown,
the final answer is exact and the exit status right. In-stream errors fail the run."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_cli_run import WAIT, Run, env, fake, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.dialects import (
    ANSWER,
    IN_STREAM_ERRORS,
    NOTES,
    THOUGHT,
    Dialect,
    all_dialects,
    assistant_of,
    sse,
)
from tests.fakes.model_server import FakeModelServer, Reply

DIALECTS = all_dialects()
PROMPT = "what do the notes say?"


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.name for d in DIALECTS])
async def test_a_tool_turn_in_each_dialect(
    dialect: Dialect, ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    (ws / "notes.txt").write_text(NOTES)
    fake.push(*dialect.replies())
    run: Run = await ink("--json", "--approval", "readonly", PROMPT)
    status = await run.finish()
    assert status == 0, run.stderr
    start = next(e for e in run.events if e["type"] == "tool_start")
    assert (start["tool_name"], start["arguments"]) == ("read", {"path": "notes.txt"})
    end = next(e for e in run.events if e["type"] == "tool_end")
    assert not end["is_error"] and "ship on Friday" in end["content"][0]["text"]
    shown = "".join(e["text"] for e in run.events if e["type"] == "thinking_delta")
    assert shown == dialect.thinking
    final = run.events[-1]
    assert (final["type"], final["stop_reason"], final["text"]) == ("run_end", "completed", ANSWER)
    assert len(fake.requests) == 2 and dialect.required(fake.requests[1]) is None


async def test_deepseek_plain_run_shows_the_reasoning_dim_and_prints_the_answer(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    """Without --json: the answer alone on stdout (a pipe), the reasoning on stderr."""
    dialect = next(d for d in DIALECTS if d.name == "DeepSeek")
    (ws / "notes.txt").write_text(NOTES)
    fake.push(*dialect.replies())
    run: Run = await ink("--approval", "readonly", PROMPT)
    raw_out, raw_err = await asyncio.wait_for(run.proc.communicate(), WAIT)
    out, err = raw_out.decode(), raw_err.decode()
    assert run.proc.returncode == 0, err
    assert out.strip().splitlines()[-1] == ANSWER and THOUGHT not in out
    assert f"thinking: {THOUGHT}" in err
    sent = assistant_of(fake.requests[1])
    assert sent["reasoning_content"] == THOUGHT and sent["tool_calls"][0]["id"].startswith(
        "call_00"
    )


async def test_a_session_keeps_the_providers_fields_for_the_next_run(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path, tmp_path: Path
) -> None:
    """Gemini's signature is in the session file, and a continued session sends it again."""
    dialect = next(d for d in DIALECTS if d.name == "Gemini")
    (ws / "notes.txt").write_text(NOTES)
    fake.push(*dialect.replies())
    run: Run = await ink("--json", "--approval", "readonly", PROMPT)
    assert await run.finish() == 0, run.stderr
    session = run.events[-1]["session_id"]
    fake.push(lambda payload: Reply(raw=dialect.answer_turn))
    again: Run = await ink("--json", "--approval", "readonly", "--session", session, "thanks")
    assert await again.finish() == 0, again.stderr
    assert dialect.required(fake.requests[2]) is None  # the signature, read back from disk


@pytest.mark.parametrize("form", list(IN_STREAM_ERRORS), ids=list(IN_STREAM_ERRORS))
async def test_an_error_inside_the_stream_fails_the_run(
    form: str, ink: Callable[..., Any], fake: FakeModelServer
) -> None:
    fake.push(Reply(raw=IN_STREAM_ERRORS[form]))
    run: Run = await ink("--approval", "readonly", PROMPT)
    _, raw_err = await asyncio.wait_for(run.proc.communicate(), WAIT)
    assert run.proc.returncode == 1
    assert "the model endpoint reported an error: the slot crashed mid-reply" in raw_err.decode()
    assert len(fake.requests) == 1  # a started reply is never retried


async def test_a_stream_cut_before_its_finish_says_so(
    ink: Callable[..., Any], fake: FakeModelServer
) -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "The notes"}, "finish_reason": None}]}
    fake.push(Reply(raw=sse(chunk, done=False)))
    run: Run = await ink("--json", "--approval", "readonly", PROMPT)
    assert await run.finish() == 1
    final = run.events[-1]
    assert final["stop_reason"] == "error"
    assert final["error"].startswith("the reply was cut off")
    assert "the reply was cut off" in run.stderr

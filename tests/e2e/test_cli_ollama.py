"""`ink-ls run` against a fake Ollama that runs models with a 4,096-token window, as Ollama does
on a GPU under 24 GiB: the window is detected (the model preloaded so `/api/ps` tells it), the
user is told once when the prompt does not fit, `INK_CONTEXT_WINDOW=65536` reaches Ollama as
`num_ctx` through its native `/api/chat`, and compaction follows the real window."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_cli_run import WAIT, Run, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.dialects import ANSWER, NOTES, THOUGHT, ollama_openai
from tests.fakes.model_server import text
from tests.fakes.ollama import MODEL, FakeOllama, native_turn

PROMPT = "what do the notes say?"


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(runtime_window=4096) as srv:
        yield srv


@pytest.fixture
def env(tmp_path: Path, fake: FakeOllama) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    out = {k: v for k, v in os.environ.items() if k in keep}
    out.update(
        INK_STATE_DIR=str(tmp_path / "state"),
        INK_BASE_URL=fake.base_url,
        INK_MODEL=MODEL,
        PYTHONUNBUFFERED="1",
    )
    return out


async def plain(run: Run) -> tuple[int, str, str]:
    out, err = await asyncio.wait_for(run.proc.communicate(), WAIT)
    assert run.proc.returncode is not None
    return run.proc.returncode, out.decode(), err.decode()


def paths(fake: FakeOllama) -> list[str]:
    return [path for path, _ in fake.native_requests]


async def test_the_runtime_window_is_detected_and_a_prompt_too_long_is_reported_once(
    ink: Any, fake: FakeOllama, ws: Path
) -> None:
    (ws / "notes.txt").write_text(NOTES)
    fake.push(*ollama_openai().replies())
    long_prompt = PROMPT + " Context: " + "the release plan is in the notes. " * 180
    code, out, err = await plain(await ink("--approval", "readonly", long_prompt))
    assert code == 0, err
    assert f"{MODEL} at {fake.base_url} · window 4,096 tokens (Ollama runtime)" in err
    # not loaded at first: preloaded so that /api/ps names the window it runs
    assert paths(fake)[:3] == ["/api/ps", "/api/generate", "/api/ps"]
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1, err  # two model requests, one warning
    assert warnings[0].startswith("warning: the prompt (about ")
    assert "larger than the model's context window (4,096 tokens, Ollama runtime)" in err
    assert "set INK_CONTEXT_WINDOW" in err and "num_ctx" in err
    assert out.strip().splitlines()[-1] == ANSWER
    assert len(fake.requests) == 2  # both through the OpenAI layer


async def test_ink_context_window_reaches_ollama_as_num_ctx(
    ink: Any, fake: FakeOllama, ws: Path, env: dict[str, str]
) -> None:
    (ws / "notes.txt").write_text(NOTES)
    env["INK_CONTEXT_WINDOW"] = "65536"
    fake.chat.extend(
        [
            native_turn(thinking=THOUGHT, calls=[("read", {"path": "notes.txt"})]),
            native_turn(text=ANSWER),
        ]
    )
    run: Run = await ink("--json", "--approval", "readonly", PROMPT)
    assert await run.finish() == 0, run.stderr
    chats = fake.native_chats()
    assert [c["options"]["num_ctx"] for c in chats] == [65536, 65536]
    assert fake.requests == []  # nothing through the OpenAI layer, which cannot set it
    assert fake.loaded == {MODEL: 65536}  # what Ollama runs the model with
    start = next(e for e in run.events if e["type"] == "tool_start")
    assert (start["tool_name"], start["arguments"]) == ("read", {"path": "notes.txt"})
    assert "".join(e["text"] for e in run.events if e["type"] == "thinking_delta") == THOUGHT
    end = run.events[-1]
    assert (end["stop_reason"], end["text"]) == ("completed", ANSWER)
    assert end["usage"]["input_tokens"] == 2 * 1830
    follow_up = chats[1]["messages"]
    assistant = next(m for m in follow_up if m["role"] == "assistant")
    assert assistant["thinking"] == THOUGHT  # sent back as Ollama gave it
    assert assistant["tool_calls"][0]["function"] == {
        "name": "read",
        "arguments": {"path": "notes.txt"},
    }
    tool = next(m for m in follow_up if m["role"] == "tool")
    assert tool["tool_name"] == "read" and "ship on Friday" in tool["content"]
    message_end = next(e for e in run.events if e["type"] == "message_end")
    assert message_end["context_window"] == 65536
    assert message_end["context_window_source"] == "configured"


async def test_compaction_follows_the_runtime_window(ink: Any, fake: FakeOllama, ws: Path) -> None:
    """A first turn, then a second that passes 80 % of 4,096 (not of the 32,768 assumed
    before): the older turn is summarised against the window Ollama really runs."""
    # a real prompt: the system prompt and tool descriptions are about 3,000 tokens
    fake.push(text("First: noted.", usage={"prompt_tokens": 3100, "completion_tokens": 20}))
    first: Run = await ink("--json", "--approval", "readonly", "remember: ship on Friday")
    assert await first.finish() == 0, first.stderr
    session = first.events[-1]["session_id"]
    assert next(e for e in first.events if e["type"] == "message_end")["context_window"] == 4096
    fake.push(text("Summary: the user said to ship on Friday."), text("Friday it is."))
    second_prompt = "and the plan? " + "We also talked about the release checklist. " * 20
    second: Run = await ink("--json", "--approval", "readonly", "--session", session, second_prompt)
    assert await second.finish() == 0, second.stderr
    compactions = [e for e in second.events if e["type"] == "compaction"]
    assert [c["phase"] for c in compactions] == ["start", "end"]
    assert compactions[0]["reason"] == "threshold"
    assert compactions[0]["context_window"] == 4096
    assert compactions[0]["tokens_before"] > 0.8 * 4096
    assert second.events[-1]["text"] == "Friday it is."
    summary_request = fake.requests[1]
    assert "ship on Friday" in summary_request["messages"][-1]["content"]

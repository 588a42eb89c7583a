"""The language server against a fake Ollama with a 4,096-token runtime window: the usage
updates name the window and where it came from, a prompt that does not fit is reported once as
a `warning` update, and the editor's `ink.model.contextWindow` reaches Ollama as `num_ctx`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import SECRET, InkClient, Starter
from tests.fakes.dialects import ANSWER, NOTES, THOUGHT, ollama_openai
from tests.fakes.ollama import MODEL, FakeOllama, native_turn


@pytest.fixture
def model() -> Iterator[FakeOllama]:
    with FakeOllama(runtime_window=4096) as srv:
        yield srv


def options(srv: FakeOllama, **more: Any) -> dict[str, Any]:
    return {"model": {"baseUrl": srv.base_url, "model": MODEL, "apiKey": SECRET, **more}}


def of_kind(client: InkClient, kind: str) -> list[dict[str, Any]]:
    return [u["update"] for u in client.updates if u["update"]["sessionUpdate"] == kind]


async def test_usage_names_the_runtime_window_and_a_long_prompt_is_warned_once(
    start: Starter, model: FakeOllama, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text(NOTES)
    model.push(*ollama_openai().replies())
    client = await start(ink=options(model))
    long_prompt = "what do the notes say? " + "The release plan is in the notes. " * 180
    result = await client.prompt(long_prompt)
    assert (result["stopReason"], result["text"]) == ("end_turn", ANSWER)
    usage = of_kind(client, "usage_update")[-1]
    assert (usage["contextWindow"], usage["contextWindowSource"]) == (4096, "Ollama runtime")
    warnings = [u["message"] for u in of_kind(client, "warning")]
    assert len(warnings) == 1
    assert "larger than the model's context window (4,096 tokens, Ollama runtime)" in warnings[0]
    assert "ink.model.contextWindow" in warnings[0]


async def test_the_editor_setting_reaches_ollama_as_num_ctx(
    start: Starter, model: FakeOllama, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text(NOTES)
    model.chat.extend(
        [
            native_turn(thinking=THOUGHT, calls=[("read", {"path": "notes.txt"})]),
            native_turn(text=ANSWER),
        ]
    )
    client = await start(ink=options(model, contextWindow=65536))
    result = await client.prompt("what do the notes say?")
    assert (result["stopReason"], result["text"]) == ("end_turn", ANSWER)
    assert [c["options"]["num_ctx"] for c in model.native_chats()] == [65536, 65536]
    assert model.requests == []
    thinking = "".join(u["content"]["text"] for u in of_kind(client, "thinking"))
    assert thinking == THOUGHT
    usage = of_kind(client, "usage_update")[-1]
    assert (usage["contextWindow"], usage["contextWindowSource"]) == (65536, "configured")
    assert not of_kind(client, "warning")

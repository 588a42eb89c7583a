"""Long sessions through the server: compaction keeps a session going in a small window.

The scripted model has a real window (`tests.fakes.windowed`): it refuses a request that does
not fit, as an endpoint does. The server is told the window by the setting
`model.contextWindow`, or finds it in `/v1/models`.
"""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import pytest

from ink_ls.protocol import methods
from tests.e2e.conftest import SECRET, Starter
from tests.fakes.model_server import FakeModelServer
from tests.fakes.windowed import WindowedModel, unpaired_calls

WINDOW = 8_192
FILES = 10


@pytest.fixture
def files(workspace: Path) -> list[str]:
    names = []
    for i in range(FILES):
        name = f"f{i}.txt"
        body = "".join(f"line {n} of file {i}: the quick brown fox jumps\n" for n in range(40))
        (workspace / name).write_text(body, encoding="utf-8")
        names.append(name)
    return names


def settings(model: FakeModelServer, window: int | None = WINDOW) -> dict[str, Any]:
    ink: dict[str, Any] = {"baseUrl": model.base_url, "model": "fake-model", "apiKey": SECRET}
    if window is not None:
        ink["contextWindow"] = window
    return {"model": ink, "approval": "auto"}


def session_file(tmp_path: Path, session_id: str) -> list[dict[str, Any]]:
    path = tmp_path / "state" / "sessions" / f"{session_id}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def compactions(client: Any) -> list[dict[str, Any]]:
    return [u["update"] for u in client.updates if u["update"]["sessionUpdate"] == "compaction"]


@pytest.mark.parametrize("preset", ["neovim"])
async def test_a_200_turn_session_never_runs_out_of_context(
    start: Starter, model: FakeModelServer, files: list[str], tmp_path: Path
) -> None:
    scripted = WindowedModel(WINDOW, reads=1)
    model.default = scripted
    client = await start(ink=settings(model))
    session_id = None
    for turn in range(200):
        params: dict[str, Any] = {"prompt": f"check {files[turn % FILES]} (turn {turn})"}
        if session_id is not None:
            params["sessionId"] = session_id
        result = await client.ink(methods.SESSION_PROMPT, params)
        assert result["stopReason"] == "end_turn", result
        session_id = result["sessionId"]

    conversation = scripted.conversation()
    assert len(conversation) == 400  # a read and an answer per prompt
    assert not [s for s in scripted.seen if s.refused]  # nothing ever outgrew the window
    assert max(s.tokens for s in scripted.seen) <= WINDOW
    assert all(not unpaired_calls(s.payload) for s in conversation)
    done = [c for c in compactions(client) if c["phase"] == "end"]
    assert len(done) >= 10
    assert all(c["tokensAfter"] < c["tokensBefore"] for c in done)
    # the user saw how full the window was, and it never passed it
    usage = [u["update"] for u in client.updates if u["update"]["sessionUpdate"] == "usage_update"]
    assert all(u["contextWindow"] == WINDOW and u["contextTokens"] <= WINDOW for u in usage)
    assert usage[-1]["sessionInputTokens"] >= sum(s.tokens for s in conversation)
    # the file keeps the whole history and the compactions
    records = session_file(tmp_path, session_id or "")
    assert sum(1 for r in records if r["type"] == "message") == 200 * 4
    assert sum(1 for r in records if r["type"] == "compaction") == len(done)


async def _prompt_until_summary(
    client: Any,
    scripted: WindowedModel,
    files: list[str],
    session_id: str | None = None,
) -> tuple[asyncio.Future[Any], str]:
    """Send prompts until one starts a compaction; return that prompt's task and the session."""
    for turn in range(60):
        params: dict[str, Any] = {"prompt": f"check {files[turn % FILES]} (turn {turn})"}
        if session_id is not None:
            params["sessionId"] = session_id
        task = asyncio.ensure_future(client.ink(methods.SESSION_PROMPT, params))
        started = asyncio.ensure_future(
            client.wait_for(lambda: any(c["phase"] == "start" for c in compactions(client)))
        )
        await asyncio.wait((task, started), return_when=asyncio.FIRST_COMPLETED, timeout=20)
        if not task.done():
            started.cancel()
            assert await asyncio.to_thread(scripted.summary_seen.wait, 20)
            return task, str(client.updates[-1]["sessionId"])
        started.cancel()
        session_id = task.result()["sessionId"]
    raise AssertionError("no compaction in 60 prompts")


def _user_texts(payload: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in payload["messages"] if m["role"] == "user"]


@pytest.mark.parametrize("preset", ["neovim"])
async def test_kill_during_a_compaction_resumes_from_the_full_history(
    start: Starter, model: FakeModelServer, files: list[str], tmp_path: Path
) -> None:
    scripted = WindowedModel(WINDOW, reads=1, summary_hang=True)
    model.default = scripted
    client = await start(ink=settings(model))
    task, session_id = await _prompt_until_summary(client, scripted, files)
    before = session_file(tmp_path, session_id)
    client._server.send_signal(signal.SIGKILL)  # kill -9 while the summary is being written
    await client._server.wait()
    task.cancel()
    assert not [r for r in session_file(tmp_path, session_id) if r["type"] == "compaction"]
    assert session_file(tmp_path, session_id) == before

    scripted.summary_hang = False
    again = await start(ink=settings(model))
    listed = await again.ink(methods.SESSION_LIST, {})
    assert session_id in [s["sessionId"] for s in listed["sessions"]]
    seen = len(scripted.seen)
    result = await again.prompt("check f1.txt (after the kill)", sessionId=session_id)
    assert result["stopReason"] == "end_turn"
    after = scripted.seen[seen:]
    # resumed from everything (the summary covers the first turns), then compacted again
    assert after[0].summary and "(turn 0)" in after[0].payload["messages"][-1]["content"]
    conversation = [s for s in after if not s.summary]
    assert not [s for s in after if s.refused]
    assert all(not unpaired_calls(s.payload) for s in conversation)
    texts = _user_texts(conversation[-1].payload)
    assert texts[0].startswith("[Summary of the earlier part")
    assert texts[-1] == "check f1.txt (after the kill)"
    assert [r for r in session_file(tmp_path, session_id) if r["type"] == "compaction"]


@pytest.mark.parametrize("preset", ["neovim"])
async def test_kill_after_a_compaction_resumes_from_the_summary(
    start: Starter, model: FakeModelServer, files: list[str], tmp_path: Path
) -> None:
    scripted = WindowedModel(WINDOW, reads=1)
    model.default = scripted
    client = await start(ink=settings(model))
    session_id = None
    for turn in range(60):
        params: dict[str, Any] = {"prompt": f"check {files[turn % FILES]} (turn {turn})"}
        if session_id:
            params["sessionId"] = session_id
        session_id = (await client.ink(methods.SESSION_PROMPT, params))["sessionId"]
        if any(c["phase"] == "end" for c in compactions(client)):
            break
    assert session_id is not None
    summary = next(r for r in session_file(tmp_path, session_id) if r["type"] == "compaction")
    client._server.send_signal(signal.SIGKILL)
    await client._server.wait()

    again = await start(ink=settings(model))
    seen = len(scripted.seen)
    result = await again.prompt("check f2.txt (after the kill)", sessionId=session_id)
    assert result["stopReason"] == "end_turn"
    first = scripted.seen[seen]
    assert not first.summary
    texts = _user_texts(first.payload)
    assert texts[0].endswith(summary["summary"])
    assert not any("(turn 0)" in t for t in texts)  # summarised, not resent
    assert texts[-1] == "check f2.txt (after the kill)"
    assert not unpaired_calls(first.payload)


@pytest.mark.parametrize("preset", ["visual_studio_code"])
async def test_cancel_during_a_compaction_leaves_the_session_as_it_was(
    start: Starter, model: FakeModelServer, files: list[str], tmp_path: Path
) -> None:
    scripted = WindowedModel(WINDOW, reads=1, summary_hang=True)
    model.default = scripted
    client = await start(ink=settings(model))
    task, session_id = await _prompt_until_summary(client, scripted, files)
    before = session_file(tmp_path, session_id)
    await client.ink(methods.SESSION_CANCEL, {"sessionId": session_id})
    result = await asyncio.wait_for(task, 20)
    assert result["stopReason"] == "cancelled"
    assert compactions(client)[-1]["phase"] == "failed"
    assert session_file(tmp_path, session_id) == before
    assert not [r for r in before if r["type"] == "compaction"]

    # the next turn still has everything: the summary it asks for starts at the first prompt
    scripted.summary_hang = False
    seen = len(scripted.seen)
    result = await client.prompt("check f3.txt (after the cancel)", sessionId=session_id)
    assert result["stopReason"] == "end_turn"
    assert "(turn 0)" in scripted.seen[seen].payload["messages"][-1]["content"]


@pytest.mark.parametrize("preset", ["neovim"])
async def test_compact_on_demand_and_the_endpoints_window(
    start: Starter, model: FakeModelServer, files: list[str], tmp_path: Path
) -> None:
    scripted = WindowedModel(WINDOW, reads=1)
    model.default = scripted
    model.models = [
        {"id": "other", "context_length": 999_999},
        {"id": "fake-model", "object": "model", "max_model_len": WINDOW},
    ]
    client = await start(ink=settings(model, window=None))  # the window comes from /v1/models
    first = await client.prompt("check f0.txt (turn 0)")
    session_id = first["sessionId"]
    for turn in (1, 2):
        await client.prompt(f"check f{turn}.txt (turn {turn})", sessionId=session_id)
    usage = [u["update"] for u in client.updates if u["update"]["sessionUpdate"] == "usage_update"]
    assert {u["contextWindow"] for u in usage} == {WINDOW}

    result = await client.ink(methods.SESSION_COMPACT, {"sessionId": session_id})
    assert result["compacted"] is True and result["contextWindow"] == WINDOW
    assert result["tokensAfter"] < result["tokensBefore"]
    assert compactions(client)[-1]["reason"] == "manual"
    records = session_file(tmp_path, session_id)
    assert records[-1]["type"] == "compaction" and records[-1]["reason"] == "manual"
    seen = len(scripted.seen)
    await client.prompt("check f4.txt (turn 4)", sessionId=session_id)
    texts = _user_texts(scripted.seen[seen].payload)
    assert texts[0].startswith("[Summary of the earlier part")
    assert not any("(turn 0)" in t for t in texts)


@pytest.mark.parametrize("preset", ["neovim"])
async def test_a_request_the_endpoint_refuses_as_too_long_is_compacted_and_retried(
    start: Starter, model: FakeModelServer, files: list[str]
) -> None:
    scripted = WindowedModel(WINDOW, reads=1)
    model.default = scripted
    client = await start(ink=settings(model, window=4 * WINDOW))  # the setting overstates it
    session_id = None
    for turn in range(30):
        params: dict[str, Any] = {"prompt": f"check {files[turn % FILES]} (turn {turn})"}
        if session_id:
            params["sessionId"] = session_id
        result = await client.ink(methods.SESSION_PROMPT, params)
        assert result["stopReason"] == "end_turn", result
        session_id = result["sessionId"]
    refused = [i for i, s in enumerate(scripted.seen) if s.refused]
    assert refused
    for i in refused:  # each refusal: a summary, then the same request once more, accepted
        assert scripted.seen[i + 1].summary and not scripted.seen[i + 2].refused
    assert {c["reason"] for c in compactions(client)} == {"overflow"}

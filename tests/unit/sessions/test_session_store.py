"""Session files: append as messages enter history, reload, repair after a kill, list, delete."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from ink_ls.core.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ToolCall,
    ToolResultEntry,
    ToolResultMessage,
    UserMessage,
    text_of,
    user_text,
)
from ink_ls.sessions.store import (
    INTERRUPTED,
    InvalidSessionIdError,
    SessionExistsError,
    SessionNotFoundError,
    SessionStore,
    new_session_id,
)


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions")


def tool_turn() -> AssistantMessage:
    return AssistantMessage(
        text="Checking.",
        tool_calls=[
            ToolCall(id="c1", name="bash", arguments='{"command": "sleep 30"}'),
            ToolCall(id="c2", name="read", arguments='{"path": "a"}'),
        ],
        stop_reason="tool_use",
    )


def test_messages_round_trip_through_the_file(store: SessionStore, tmp_path: Path) -> None:
    session = store.create("s-1", cwd=tmp_path)
    history = [
        UserMessage(
            content=[TextBlock(text="look"), ImageBlock(data="AAAA", mime_type="image/png")]
        ),
        tool_turn(),
        ToolResultMessage(
            results=[
                ToolResultEntry(
                    tool_call_id="c1", tool_name="bash", content=[TextBlock(text="ok")]
                ),
                ToolResultEntry(
                    tool_call_id="c2",
                    tool_name="read",
                    content=[TextBlock(text="x")],
                    is_error=True,
                ),
            ]
        ),
        AssistantMessage(text="Done."),
    ]
    for m in history:
        session.append(m)
        # flushed before append returns: another reader sees it at once
        last = session.path.read_text().splitlines()[-1]
        assert json.loads(last)["message"] == m.model_dump(mode="json", by_alias=True)
    assert session.messages == history
    lines = (tmp_path / "sessions" / "s-1.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "session"
    assert json.loads(lines[1])["message"]["content"][1] == {
        "type": "image",
        "data": "AAAA",
        "mimeType": "image/png",
    }
    reopened = store.open("s-1")
    assert reopened.messages == history and reopened.cwd == str(tmp_path)


def test_dangling_tool_calls_get_a_synthesized_result_that_is_persisted(
    store: SessionStore,
) -> None:
    session = store.create("s-1")
    session.append(user_text("run it"))
    session.append(tool_turn())  # killed while the tools ran
    repaired = store.open("s-1")
    assert repaired.messages[-1] == ToolResultMessage(
        results=[
            ToolResultEntry(
                tool_call_id="c1",
                tool_name="bash",
                content=[TextBlock(text=INTERRUPTED)],
                is_error=True,
            ),
            ToolResultEntry(
                tool_call_id="c2",
                tool_name="read",
                content=[TextBlock(text=INTERRUPTED)],
                is_error=True,
            ),
        ]
    )
    assert INTERRUPTED == (
        "(interrupted: the previous run ended before this tool returned a result)"
    )
    again = store.open("s-1")  # the repair is on disk: no second synthesized message
    assert again.messages == repaired.messages and len(again.messages) == 3


def test_a_torn_last_line_is_dropped_and_appends_continue_cleanly(store: SessionStore) -> None:
    session = store.create("s-1")
    session.append(user_text("hello"))
    with open(session.path, "a") as fh:
        fh.write('{"type":"message","at":"2026-01-01T00:00:00Z","message":{"role":"assis')
    reopened = store.open("s-1")
    assert reopened.messages == [user_text("hello")]
    reopened.append(AssistantMessage(text="hi"))
    assert store.open("s-1").messages == [user_text("hello"), AssistantMessage(text="hi")]


def test_a_damaged_line_is_skipped_with_a_warning_and_the_rest_loads(
    store: SessionStore, caplog: pytest.LogCaptureFixture
) -> None:
    session = store.create("s-1")
    session.append(user_text("before"))
    with open(session.path, "a") as fh:
        fh.write("not json\n")
        fh.write('{"type":"message","message":{"role":"martian"}}\n')
        fh.write("[1, 2]\n")
    session.append(user_text("after"))
    with caplog.at_level(logging.WARNING):
        loaded = store.open("s-1")
    assert loaded.messages == [user_text("before"), user_text("after")]
    assert [w.split(" of ")[0] for w in loaded.warnings] == [
        'session "s-1": line 3',
        'session "s-1": line 4',
        'session "s-1": line 5',
    ]
    assert (
        "is damaged (JSONDecodeError) and was skipped; the rest of the session is loaded"
        in (loaded.warnings[0])
    )
    assert loaded.warnings[0] in caplog.text
    assert [i.id for i in store.list()] == ["s-1"]


def test_a_lost_tool_result_is_replaced_so_the_history_stays_valid(store: SessionStore) -> None:
    session = store.create("s-1")
    session.append(user_text("go"))
    session.append(
        AssistantMessage(text="", tool_calls=[ToolCall(id="c1", name="ls", arguments="{}")])
    )
    lines = session.path.read_bytes().split(b"\n")
    session.append(
        ToolResultMessage(results=[ToolResultEntry(tool_call_id="c1", tool_name="ls", content=[])])
    )
    session.append(AssistantMessage(text="done"))
    damaged = session.path.read_bytes().split(b"\n")
    damaged[len(lines) - 1] = b'{"type":"message","message":{"role":"toolResult","results":[{'
    session.path.write_bytes(b"\n".join(damaged))
    loaded = store.open("s-1")
    assert [m.role for m in loaded.messages] == ["user", "assistant", "toolResult", "assistant"]
    result = loaded.messages[2]
    assert isinstance(result, ToolResultMessage)
    assert result.results[0].tool_call_id == "c1" and result.results[0].is_error
    assert "damaged" in text_of(result.results[0].content)
    assert any("1 tool result(s) were lost" in w for w in loaded.warnings)


def test_line_separators_inside_a_message_keep_the_session_whole(store: SessionStore) -> None:
    said = "one\u2028two\u2029three\x85four\x0cfive\x1cend"
    session = store.create("s-1")
    session.append(user_text(said))
    session.append(AssistantMessage(text=said))
    loaded = store.open("s-1")
    assert loaded.warnings == []
    assert loaded.messages == [user_text(said), AssistantMessage(text=said)]
    [info] = store.list()
    assert info.message_count == 2


def test_unknown_and_invalid_ids(store: SessionStore) -> None:
    with pytest.raises(SessionNotFoundError) as info:
        store.open("nope")
    assert str(info.value) == f'no session "nope" in {store.root}; `ink-ls sessions` lists them'
    for bad in ["../etc/passwd", "a/b", ".hidden", "", "x" * 129, "a b", "..", "/abs"]:
        with pytest.raises(InvalidSessionIdError):
            store.open(bad)
        with pytest.raises(InvalidSessionIdError):
            store.create(bad)
    assert not (store.root.parent / "etc").exists()


def test_create_refuses_a_taken_id_and_open_or_create_continues(store: SessionStore) -> None:
    first = store.open_or_create("mine")
    first.append(user_text("one"))
    with pytest.raises(SessionExistsError):
        store.create("mine")
    assert store.open_or_create("mine").messages == [user_text("one")]
    fresh = store.create()
    assert fresh.id.startswith("s-") and fresh.id != new_session_id()


def test_list_and_delete(store: SessionStore) -> None:
    assert store.list() == []
    a = store.create("a")
    a.append(user_text("\n  first line of the prompt\nsecond line"))
    a.append(AssistantMessage(text="ok"))
    b = store.create("b")
    b.append(user_text("y" * 100))
    infos = {i.id: i for i in store.list()}
    assert set(infos) == {"a", "b"}
    assert (infos["a"].title, infos["a"].message_count) == ("first line of the prompt", 2)
    assert infos["b"].title == "y" * 79 + "…"
    assert infos["a"].updated_at >= infos["a"].created_at
    store.delete("a")
    assert [i.id for i in store.list()] == ["b"]
    with pytest.raises(SessionNotFoundError):
        store.delete("a")


def test_default_root_follows_ink_state_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INK_STATE_DIR", str(tmp_path / "state"))
    assert SessionStore().root == tmp_path / "state" / "sessions"


def test_a_compaction_is_recorded_and_replayed(store: SessionStore) -> None:
    from ink_ls.agent.compaction import SUMMARY_HEADER, Compaction
    from ink_ls.core.messages import Usage

    session = store.create("long")
    for n in range(3):
        session.append(user_text(f"question {n}"))
        session.append(
            AssistantMessage(text=f"answer {n}", usage=Usage(input_tokens=10, output_tokens=2))
        )
    session.record_compaction(
        Compaction(
            summary="asked three things",
            kept=2,
            reason="threshold",
            tokens_before=900,
            tokens_after=100,
            usage=Usage(input_tokens=50, output_tokens=7),
        )
    )
    session.append(user_text("question 3"))
    loaded = store.open("long")
    assert [m.model_dump(exclude={"usage"}) for m in loaded.messages] == [
        m.model_dump(exclude={"usage"}) for m in session.messages
    ]
    assert loaded.messages[0] == user_text(f"{SUMMARY_HEADER}\n\nasked three things")
    assert [m.content[0].text for m in loaded.messages[1:2]] == ["question 2"]  # type: ignore[union-attr]
    assert loaded.title == "question 0"
    assert (loaded.totals.input_tokens, loaded.totals.output_tokens) == (80, 13)
    lines = [json.loads(x) for x in loaded.path.read_text().splitlines()]
    assert sum(1 for x in lines if x["type"] == "message") == 7  # the full history stays
    [info] = store.list()
    assert (info.message_count, info.compactions, info.title) == (7, 1, "question 0")


def test_a_compaction_that_does_not_fit_is_damage(store: SessionStore) -> None:
    session = store.create("bad")
    session.append(user_text("hi"))
    with open(session.path, "a") as fh:
        fh.write(json.dumps({"type": "compaction", "summary": "s", "kept": 5}) + "\n")
    loaded = store.open("bad")
    assert loaded.messages == [user_text("hi")] and loaded.compactions == 0
    assert "line 3" in loaded.warnings[0] and "(ValueError)" in loaded.warnings[0]


def test_ids_created_in_a_burst_never_collide(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    ids = {store.create().id for _ in range(3000)}  # all within a second or two
    assert len(ids) == 3000
    assert len(list(tmp_path.glob("*.jsonl"))) == 3000


def test_provider_fields_and_thinking_survive_the_file(store: SessionStore, tmp_path: Path) -> None:
    """What a provider sent and we do not interpret comes back byte for byte after a reload."""
    signature = "CiQB0e2Kb7+/signature=="
    reply = AssistantMessage(
        text="",
        thinking="The user wants the file; read it first.",
        extra={
            "openai-chat": {
                "reasoning_content": "The user wants the file; read it first.",
                "reasoning_details": [{"type": "reasoning.text", "text": "…", "signature": None}],
            }
        },
        tool_calls=[
            ToolCall(
                id="c1",
                name="read",
                arguments='{"path": "a"}',
                extra={
                    "openai-chat": {"extra_content": {"google": {"thought_signature": signature}}}
                },
            )
        ],
        stop_reason="tool_use",
    )
    session = store.create("s-extra", cwd=tmp_path)
    session.append(user_text("read a"))
    session.append(reply)
    reloaded = store.open("s-extra").messages[1]
    assert reloaded == reply
    assert isinstance(reloaded, AssistantMessage)
    assert reloaded.tool_calls[0].extra["openai-chat"]["extra_content"] == {
        "google": {"thought_signature": signature}
    }


def test_sessions_written_before_provider_fields_still_load(store: SessionStore) -> None:
    old = AssistantMessage(text="hi").model_dump(mode="json", by_alias=True)
    del old["extra"], old["thinking"]
    assert AssistantMessage.model_validate(old) == AssistantMessage(text="hi")

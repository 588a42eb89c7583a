"""The session book over a real store in a temp dir: create, resume, list per workspace, delete."""

from __future__ import annotations

from pathlib import Path

import pytest

from ink_ls.core.messages import AssistantMessage, user_text
from ink_ls.editor.sessions import SessionBook, title_of
from ink_ls.protocol.errors import InkErrorCode, InkRequestError
from ink_ls.sessions.store import SessionStore


def test_titles() -> None:
    assert title_of("\n  first line \nsecond") == "first line"
    assert title_of("x" * 100) == "x" * 79 + "…"


async def test_create_resume_list_delete(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    ws, other = tmp_path / "ws", tmp_path / "other"
    book = SessionBook(store, ws)
    session = book.new("remember 42\nplease")
    assert session.stored is not None and session.title == "remember 42"
    session.stored.append(user_text("remember 42"))
    session.stored.append(AssistantMessage(text="ok"))
    other_book = SessionBook(store, other)
    elsewhere = other_book.new("elsewhere")  # another workspace's session
    # the book's sessions are written off the event loop: a turn flushes before it ends
    await book.flush(session.session_id)
    await other_book.flush(elsewhere.session_id)

    fresh = SessionBook(store, ws)  # a new server process
    (info,) = fresh.infos()
    assert (info.session_id, info.title, info.running) == (session.session_id, "remember 42", False)
    resumed = fresh.get(session.session_id)
    assert [m.role for m in resumed.messages] == ["user", "assistant"]
    assert resumed.turns == 1

    await fresh.close(session.session_id, delete=True)
    assert fresh.infos() == []
    with pytest.raises(InkRequestError) as info_err:
        fresh.get(session.session_id)
    assert (info_err.value.code, info_err.value.message) == (
        InkErrorCode.SESSION_NOT_FOUND,
        f"session not found: {session.session_id}",
    )
    with pytest.raises(InkRequestError) as info_err:
        fresh.get("../../etc/passwd")  # not a valid id: invalid params, the store is not asked
    assert info_err.value.code == -32602
    assert info_err.value.message.startswith('invalid session id "../../etc/passwd": use 1-128')


def test_without_a_store_sessions_live_in_memory(tmp_path: Path) -> None:
    book = SessionBook(None, tmp_path)
    session = book.new("hi")
    assert session.session_id.startswith("s-") and session.stored is None
    assert book.get(session.session_id) is session
    assert [i.session_id for i in book.infos()] == [session.session_id]

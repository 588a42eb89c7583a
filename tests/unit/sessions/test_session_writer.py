"""Session files written by the writer's thread: every line, in order, once; a failed write
keeps its lines waiting and tells the session's listener on the event loop; `flush` waits."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from ink_ls.core.messages import AssistantMessage, Message, user_text
from ink_ls.sessions.store import Session, SessionStore
from ink_ls.sessions.writer import SessionWriter


def _texts(path: Path) -> list[str]:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[0]["type"] == "session"
    return [r["message"]["content"][0]["text"] for r in records[1:]]


async def test_lines_of_many_sessions_are_written_in_order_off_the_loop(tmp_path: Path) -> None:
    store, writer = SessionStore(tmp_path / "sessions"), SessionWriter()
    threads: set[str] = set()
    sessions = [store.create(cwd=tmp_path, writer=writer) for _ in range(20)]
    for session in sessions:
        session.on_save = lambda s, reason: threads.add(threading.current_thread().name)
    for n in range(30):
        for session in sessions:
            session.append(user_text(f"{session.id} {n}"))
        if n % 7 == 0:
            await asyncio.sleep(0)  # the writer's thread runs between the appends
    for session in sessions:
        await session.flush()
        assert _texts(session.path) == [f"{session.id} {n}" for n in range(30)]
        assert session.unsaved == 0 and session.save_error is None
    reopened = store.open(sessions[0].id)
    assert len(reopened.messages) == 30
    assert threads <= {threading.main_thread().name}  # listeners hear on the loop, if at all


async def test_a_failed_write_keeps_its_lines_and_the_listener_hears_it_on_the_loop(
    tmp_path: Path,
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the sessions directory should be")
    writer = SessionWriter()
    session = SessionStore(blocked / "sessions").create(cwd=tmp_path, writer=writer)
    heard: list[tuple[str | None, str]] = []
    session.on_save = lambda s, reason: heard.append((reason, threading.current_thread().name))
    session.append(user_text("first"))
    session.append(AssistantMessage(text="second"))
    await session.flush()
    assert session.save_error is not None and session.unsaved == 2
    assert [name for _, name in heard] == [threading.main_thread().name]
    assert heard[0][0] is not None and "blocked" in heard[0][0]

    blocked.unlink()  # the store takes writes again: the next line takes the waiting ones along
    session.append(user_text("third"))
    await session.flush()
    assert session.save_error is None and heard[-1][0] is None
    messages: list[Message] = SessionStore(blocked / "sessions").open(session.id).messages
    assert [m.role for m in messages] == ["user", "assistant", "user"]


def test_without_a_running_loop_a_line_is_written_at_once(tmp_path: Path) -> None:
    session = SessionStore(tmp_path / "sessions").create(cwd=tmp_path, writer=SessionWriter())
    session.append(user_text("now"))
    assert _texts(session.path) == ["now"]


async def test_write_all_writes_what_still_waits(tmp_path: Path) -> None:
    """What an exit (interpreter exit, an exit signal) runs: lines not yet written go out."""
    writer = SessionWriter()
    session: Session = SessionStore(tmp_path / "sessions").create(cwd=tmp_path, writer=writer)
    session.append(user_text("before the exit"))
    writer.write_all()  # on the caller's thread, whatever the writer's thread is doing
    assert _texts(session.path) == ["before the exit"]
    await session.flush()  # the queued job finds nothing left: no line twice
    assert _texts(session.path) == ["before the exit"]

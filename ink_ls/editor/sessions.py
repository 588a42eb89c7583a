"""The sessions of one server connection: live ones in memory, stored ones resumed from the
`SessionStore`, each with at most one running turn.

It keeps the bookkeeping only; running a turn is the host's job.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ink_ls.agent.compaction import Compaction
from ink_ls.agent.instructions import ProjectInstructions
from ink_ls.core.messages import Message, Usage
from ink_ls.core.signal import CancelController
from ink_ls.model.wire import WireCache
from ink_ls.protocol.errors import INVALID_PARAMS, InkRequestError, session_not_found
from ink_ls.protocol.models import SessionInfo
from ink_ls.sessions.store import (
    InvalidSessionIdError,
    Session,
    SessionError,
    SessionStore,
    new_session_id,
    validate_session_id,
)
from ink_ls.sessions.writer import shared_writer

TITLE_CHARS = 80


def now() -> str:
    """The current UTC time as the wire shows it (`2026-11-29T22:05:01Z`)."""
    return stamp(datetime.now(UTC))


def stamp(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def title_of(prompt: str) -> str:
    """The first non-empty line of the prompt, cut at 80 characters."""
    line = next((ln.strip() for ln in prompt.splitlines() if ln.strip()), "")
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


@dataclass
class Turn:
    """One running turn: its cancel, and the prompt request id and progress token that cancel it."""

    turn_id: str
    controller: CancelController
    request_id: object | None
    token: str | int | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class LiveSession:
    session_id: str
    title: str
    created_at: str
    updated_at: str
    messages: list[Message] = field(default_factory=list)
    """The agent's history (the agent appends to it)."""
    always_allowed: set[str] = field(default_factory=set)
    """"Always allow" answers of this session, shared by the gate and the writer."""
    turns: int = 0
    turn: Turn | None = None
    stored: Session | None = None
    """The persisted history (appended as messages enter `messages`), when a store is used."""
    usage: Usage = field(default_factory=Usage)
    """Tokens of the whole session (every reply and summary), for `usage_update`."""
    instructions: ProjectInstructions | None = None
    """The project instructions loaded so far (kept across the session's turns)."""
    wire: WireCache = field(default_factory=WireCache)
    """The wire form of `messages`, built once per message across the session's turns."""

    def record_compaction(self, compaction: Compaction) -> None:
        """A compaction of this session's conversation: the file records it."""
        if self.stored is not None:
            self.stored.record_compaction(compaction)

    def record(self, message: Message) -> None:
        """Persist a message that entered the history (nothing without a store)."""
        if self.stored is not None:
            self.stored.append(message)


class SessionBook:
    """Live sessions by id, backed by an optional store for this workspace."""

    def __init__(self, store: SessionStore | None, cwd: Path) -> None:
        self.store = store
        self.cwd = cwd
        self.live: dict[str, LiveSession] = {}
        self.writer = shared_writer()
        """Writes the session files off the event loop (a turn flushes before it ends)."""

    def new(self, prompt: str) -> LiveSession:
        """A new session titled after the prompt (stored when a store is used)."""
        store = self.store
        stored = store.create(cwd=self.cwd, writer=self.writer) if store is not None else None
        if stored is not None:
            session_id = stored.id
        else:
            session_id = new_session_id()
        created = now()
        session = LiveSession(session_id, title_of(prompt), created, created, stored=stored)
        self.live[session_id] = session
        return session

    def get(self, session_id: str) -> LiveSession:
        """A live session, or a stored one resumed; -32001 when there is none."""
        session = self.live.get(session_id)
        if session is not None:
            return session
        try:
            validate_session_id(session_id)
        except InvalidSessionIdError as exc:
            raise InkRequestError(INVALID_PARAMS, str(exc)) from None
        try:
            if self.store is None or not self.store.exists(session_id):
                raise session_not_found(session_id)
            stored = self.store.open(session_id)
        except SessionError:
            raise session_not_found(session_id) from None
        stored.writer = self.writer
        session = LiveSession(
            session_id,
            stored.title,
            stamp(stored.created_at),
            now(),
            list(stored.messages),
            stored=stored,
            usage=stored.totals,
        )
        # turn ids follow the checkpoint numbers (`t<N>`) once the session has entries
        session.turns = stored.timeline.last or sum(1 for m in stored.messages if m.role == "user")
        self.live[session_id] = session
        return session

    def running(self) -> list[Turn]:
        return [s.turn for s in self.live.values() if s.turn is not None]

    def infos(self) -> list[SessionInfo]:
        """This workspace's sessions (live and stored), most recently updated first."""
        infos = [
            SessionInfo(
                session_id=s.session_id,
                title=s.title,
                created_at=s.created_at,
                updated_at=s.updated_at,
                running=s.turn is not None,
            )
            for s in self.live.values()
        ]
        for info in self.store.list() if self.store is not None else []:
            if info.id in self.live or info.cwd not in (None, str(self.cwd)):
                continue
            infos.append(
                SessionInfo(
                    session_id=info.id,
                    title=info.title,
                    created_at=stamp(info.created_at),
                    updated_at=stamp(info.updated_at),
                    running=False,
                )
            )
        infos.sort(key=lambda i: i.updated_at, reverse=True)
        return infos

    async def close(self, session_id: str, *, delete: bool) -> None:
        """Cancel a running turn, wait for it, forget the session (and delete its file)."""
        turn = self.get(session_id).turn
        if turn is not None:
            turn.controller.cancel("session closed")
            await turn.done.wait()
        await self.flush(session_id)  # no line of it may land after the file is gone
        self.live.pop(session_id, None)
        if delete and self.store is not None:
            try:
                self.store.delete(session_id)
            except SessionError:
                pass  # never stored (or already gone): nothing to delete

    async def flush(self, session_id: str) -> None:
        """Wait until a live session's lines are written (no-op for others)."""
        session = self.live.get(session_id)
        if session is not None and session.stored is not None:
            await session.stored.flush()

    async def flush_all(self) -> None:
        """Wait until every live session's lines are written."""
        for session_id in list(self.live):
            await self.flush(session_id)

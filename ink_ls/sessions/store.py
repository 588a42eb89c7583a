"""Session storage: a JSONL file per session under the state directory, append-only.

Line 1 is a header (`{"type": "session", …}`); every other line is one history message as it
entered history, or a compaction (`{"type": "compaction", "summary", "kept", …}`: from here on
the conversation continues from the summary plus the last `kept` messages). The file keeps the
full history; `Session.messages` is the conversation as it continues (compactions replayed).
Checkpoint records (`turn`, `rewind`, `checkpoint`: see `checkpoints.timeline`) number the
turns and rewinds; a rewind of the conversation makes `messages` continue from the view
just before the entry it went back to. Each record is one line written at once, so a process
killed mid-compaction leaves the file as it was before it. Loading repairs what a killed
process leaves behind (a torn last line, tool calls without results) and skips a damaged line
with a warning (lines split on `\n` only), so the next model request is valid. Knows nothing
about the loop.

A store that cannot be written (read-only, disk full) never loses history silently: lines not
yet written wait in memory and go out with the next write that succeeds (a failed write is
cut back, so no line is torn or doubled), and the session's `on_save` listener hears when
saving fails and when it works again.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from ink_ls.agent.compaction import Compaction, compacted_view, describe
from ink_ls.checkpoints import forget_session
from ink_ls.checkpoints.timeline import RECORD_TYPES, Timeline
from ink_ls.core.env import state_dir
from ink_ls.core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolResultEntry,
    ToolResultMessage,
    Usage,
    UserMessage,
    text_of,
)
from ink_ls.sessions.repair import pair_tool_calls, record_lines
from ink_ls.sessions.views import ConversationViews

if TYPE_CHECKING:
    from ink_ls.sessions.writer import SessionWriter

log = logging.getLogger(__name__)

INTERRUPTED = "(interrupted: the previous run ended before this tool returned a result)"
"""The synthesized result for a tool call that a killed run left without one."""
FORMAT_VERSION = 1
TITLE_CHARS = 80
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


@functools.cache
def _message_adapter() -> TypeAdapter[Message]:
    """The validator of stored messages, built with the first session file read (a new
    session reads none: `ink-ls run` without `--session` does not build it)."""
    return TypeAdapter(Message)


class SessionError(Exception):
    """Root of session-storage errors; messages are whole sentences for the user."""


class SessionNotFoundError(SessionError):
    """No stored session has that id."""


class SessionExistsError(SessionError):
    """`create` was given the id of a stored session."""


class InvalidSessionIdError(SessionError, ValueError):
    """An id that could escape the sessions directory or is not a plain name."""


def validate_session_id(session_id: str) -> str:
    """`session_id` when it is 1–128 letters, digits, `.`, `_`, `-` (not starting with those
    symbols); else `InvalidSessionIdError`. Keeps ids from naming paths outside the store."""
    if not _ID.fullmatch(session_id):
        shown = session_id if len(session_id) <= 40 else session_id[:40] + "…"
        raise InvalidSessionIdError(
            f"invalid session id {json.dumps(shown)}: use 1-128 letters, digits, '.', '_' or "
            "'-', starting with a letter or digit"
        )
    return session_id


def new_session_id() -> str:
    """A fresh, sortable id such as `s-20261129-220501-3f2a9c01d4e7` (48 random bits: no
    collision in bursts of thousands per second)."""
    return f"s-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(6)}"


def unsaved_message(session_id: str, reason: str) -> str:
    """What the user reads when a session cannot be saved."""
    return (
        f"session {session_id} could not be saved: {reason}; its history is kept in "
        "memory and saved as soon as the store can be written again"
    )


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(value: Any, fallback: datetime) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        except ValueError:
            pass
    return fallback


def title_of(text: str) -> str:
    """The first non-empty line of a prompt, cut at 80 characters."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str
    """The first line of the first prompt (cut at 80 characters); "" before any prompt."""
    created_at: datetime
    updated_at: datetime
    message_count: int
    cwd: str | None = None
    """The workspace root the session was created for, when known."""
    compactions: int = 0


SaveListener = Callable[["Session", "str | None"], None]
"""Told `(session, reason)` when saving starts failing, `(session, None)` when it works again."""


class Session:
    """One session's history. `append` records a message and saves it before it returns
    when the store can be written (else it is kept and saved later; see `save_error`).

    `append` also adds the message to `messages`; give an agent a copy
    (`list(session.messages)`) as its starting history so nothing is counted twice.
    """

    def __init__(
        self,
        session_id: str,
        path: Path,
        messages: list[Message],
        *,
        created_at: datetime,
        cwd: str | None,
        unsaved_header: str | None = None,
        save_error: str | None = None,
        title: str = "",
        totals: Usage | None = None,
        compactions: int = 0,
    ) -> None:
        self.id = session_id
        self.path = path
        self.messages = messages
        """The conversation as it continues: compactions applied."""
        self.created_at = created_at
        self.cwd = cwd
        self._title = title
        self.totals = totals if totals is not None else Usage()
        """Tokens of every reply and summary in the file (the whole history)."""
        self.compactions = compactions
        self._header = unsaved_header
        self._pending: list[str] = []
        self.save_error = save_error
        """Why the last save failed (history waits in memory), or None when all is saved."""
        self.on_save: SaveListener | None = None
        self.warnings: list[str] = []
        """What loading had to skip or repair (damaged lines), one sentence each."""
        self.timeline = Timeline()
        """The checkpoint entries (turns and rewinds) recorded so far."""
        self.views = ConversationViews()
        """The conversation just before each entry (what a rewind to it continues from)."""
        self.writer: SessionWriter | None = None
        """Writes the lines in a thread of its own (`sessions.writer`); None: each line is
        written before `append`, `record` or `record_compaction` returns."""
        self._lock = threading.Lock()
        """Held while lines are written (the writer's thread, or `save` on the caller's)."""
        self.write_queued = False
        """A write job for this session waits for the writer's thread (it takes every line
        queued before it starts)."""

    def record(self, record: dict[str, Any]) -> None:
        """Write a checkpoint record (see `checkpoints.timeline`) and take it into account:
        a rewind of the conversation makes `messages` continue from before its target."""
        self._pending.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        continued = replay_entry(self.timeline, self.views, self.messages, record)
        if continued is not self.messages:  # a rewind of the conversation
            self.messages[:] = continued
        self.write_soon()

    def append(self, message: Message) -> None:
        """Add `message` and write it as one JSONL line (with any lines still waiting)."""
        record = {
            "type": "message",
            "at": _now(),
            "message": message.model_dump(mode="json", by_alias=True),
        }
        self._pending.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.messages.append(message)
        if isinstance(message, AssistantMessage):
            self.totals = self.totals.add(message.usage)
        if not self._title and isinstance(message, UserMessage):
            self._title = title_of(text_of(message.content))
        self.write_soon()

    def record_compaction(self, compaction: Compaction) -> None:
        """Write the compaction as one line; `messages` continues from its summary."""
        record = {
            "type": "compaction",
            "at": _now(),
            **describe(compaction),
            "usage": compaction.usage.model_dump(),
        }
        self._pending.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.messages[:] = compacted_view(self.messages, compaction.summary, compaction.kept)
        self.totals = self.totals.add(compaction.usage)
        self.compactions += 1
        self.write_soon()

    @property
    def unsaved(self) -> int:
        """Messages recorded but not yet written."""
        return len(self._pending)

    def write_soon(self) -> None:
        """Write the waiting lines: through the writer when there is one, else now."""
        if self.writer is not None:
            self.writer.submit(self)
        else:
            self.save()

    async def flush(self) -> None:
        """Wait until the lines the writer was asked to write are written (or wait, failed)."""
        if self.writer is not None:
            await self.writer.flush(self)

    def save(self, *, creating: bool = False) -> bool:
        """Write what waits in memory; True when everything is saved. Never raises OSError
        (but `FileExistsError` when `creating` and the id is taken)."""
        return self.saved(self.write_waiting(creating=creating))

    def write_waiting(self, *, creating: bool = False, timeout: float = -1) -> str | None:
        """Write the waiting lines (any thread); why it failed, or None (nothing is then
        waiting). A failed write is cut back and its lines wait for the next one. `timeout`:
        how long to wait for a write in progress elsewhere (at exit: never for ever)."""
        if not self._lock.acquire(timeout=timeout):
            return None
        try:
            return self._write_locked(creating)
        finally:
            self._lock.release()

    def _write_locked(self, creating: bool) -> str | None:
        if not self._pending and self._header is None:
            return None
        count = len(self._pending)  # lines queued meanwhile wait for the next write
        data = "".join(([self._header] if self._header is not None else []) + self._pending[:count])
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # the header goes first, to a file that must not exist yet (ids never collide)
            with open(self.path, "x" if self._header is not None else "a", encoding="utf-8") as fh:
                size = fh.tell()
                try:
                    fh.write(data)
                    fh.flush()
                except OSError:
                    with contextlib.suppress(OSError):
                        if self._header is not None:  # we created it: leave no empty file
                            self.path.unlink()
                        else:
                            fh.truncate(size)  # never a torn or doubled line on the next try
                    raise
        except FileExistsError:
            if creating:
                raise
            return f"another session file took this id meanwhile ({self.path})"
        except OSError as exc:
            return f"{exc.strerror or exc} ({self.path})"
        self._header = None
        del self._pending[:count]
        return None

    def saved(self, error: str | None) -> bool:
        """Take the outcome of a write (`write_waiting`): tell `on_save` when it changed."""
        changed = (error is None) != (self.save_error is None)
        self.save_error = error
        if changed and self.on_save is not None:
            self.on_save(self, error)
        return error is None

    @property
    def title(self) -> str:
        return self._title

    @property
    def state_dir(self) -> Path:
        """The state directory of this session's store (its workspace's checkpoints live
        there, next to the sessions directory)."""
        return self.path.parent.parent


class SessionStore:
    """The sessions under one directory (default `state_dir()/sessions`)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else state_dir() / "sessions"

    def _path(self, session_id: str) -> Path:
        return self.root / f"{validate_session_id(session_id)}.jsonl"

    def exists(self, session_id: str) -> bool:
        return self._path(session_id).is_file()

    def create(
        self,
        session_id: str | None = None,
        *,
        cwd: Path | None = None,
        writer: SessionWriter | None = None,
    ) -> Session:
        """A new, empty session (its file holds only the header, created exclusively).
        `SessionExistsError` if the id is taken. When the store cannot be written the
        session lives in memory with `save_error` set, and is saved when possible. With a
        `writer` (and a fresh id, which never collides) the file is created by the writer."""
        sid = session_id if session_id is not None else new_session_id()
        path = self._path(sid)
        cwd_text = str(cwd) if cwd is not None else None
        created = _now()
        header = {
            "type": "session",
            "version": FORMAT_VERSION,
            "id": sid,
            "created": created,
            "cwd": cwd_text,
        }
        session = Session(
            sid,
            path,
            [],
            created_at=_parse_time(created, datetime.now(UTC)),
            cwd=cwd_text,
            unsaved_header=json.dumps(header, ensure_ascii=False) + "\n",
        )
        if writer is not None and session_id is None:
            session.writer = writer
            session.write_soon()
            return session
        try:
            session.save(creating=True)
        except FileExistsError:
            raise SessionExistsError(f'a session named "{sid}" already exists') from None
        session.writer = writer
        return session

    def open(self, session_id: str) -> Session:
        """Load a stored session, repairing a torn last line and closing dangling tool calls
        with an error result each; a damaged line is skipped with a warning (logged and in
        `Session.warnings`). `SessionNotFoundError` when there is no such session."""
        path = self._path(session_id)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise SessionNotFoundError(
                f'no session "{session_id}" in {self.root}; `ink-ls sessions` lists them'
            ) from None
        if raw and not raw.endswith(b"\n"):
            # the process died mid-write: drop the partial line so appends start clean
            keep = raw.rfind(b"\n") + 1
            log.warning(
                "session %s: dropping a partial last line (%d bytes)", session_id, len(raw) - keep
            )
            try:
                with open(path, "r+b") as fh:
                    fh.truncate(keep)
            except OSError as exc:  # a read-only store: loading still works
                log.warning("session %s: could not drop the partial line: %s", session_id, exc)
            raw = raw[:keep]
        header: dict[str, Any] = {}
        messages: list[Message] = []
        title = ""
        totals = Usage()
        compactions = 0
        timeline = Timeline()
        views = ConversationViews()
        warnings: list[str] = []
        for number, line in record_lines(raw):
            try:
                record = json.loads(line)
                kind = record.get("type")
                if kind == "session":
                    header = record
                elif kind == "message":
                    message = _message_adapter().validate_python(record["message"])
                    messages.append(message)
                    if isinstance(message, AssistantMessage):
                        totals = totals.add(message.usage)
                    elif not title and isinstance(message, UserMessage):
                        title = title_of(text_of(message.content))
                elif kind in RECORD_TYPES:
                    messages = replay_entry(timeline, views, messages, record)
                elif kind == "compaction":
                    kept = int(record["kept"])
                    if not isinstance(record["summary"], str) or not 0 <= kept <= len(messages):
                        raise ValueError("a compaction that does not fit the history")
                    messages = compacted_view(messages, record["summary"], kept)
                    totals = totals.add(Usage.model_validate(record.get("usage") or {}))
                    compactions += 1
            except (ValueError, KeyError, AttributeError, TypeError, ValidationError) as exc:
                # one bad record costs that record, never the session
                warning = (
                    f'session "{session_id}": line {number} of {path} is damaged '
                    f"({type(exc).__name__}) and was skipped; the rest of the session is loaded"
                )
                log.warning("%s", warning)
                warnings.append(warning)
        messages, repaired = pair_tool_calls(messages)
        if repaired:
            warnings.append(
                f'session "{session_id}": {repaired} tool result(s) were lost with the damaged '
                "line(s) and were replaced by a note"
            )
        mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
        session = Session(
            session_id,
            path,
            messages,
            created_at=_parse_time(header.get("created"), mtime),
            cwd=header.get("cwd"),
            title=title,
            totals=totals,
            compactions=compactions,
        )
        session.timeline, session.views = timeline, views
        session.warnings = warnings
        _close_dangling_calls(session)
        return session

    def open_or_create(self, session_id: str, *, cwd: Path | None = None) -> Session:
        """`open(session_id)`, or a new session under that id when none is stored."""
        try:
            return self.open(session_id)
        except SessionNotFoundError:
            return self.create(session_id, cwd=cwd)

    def list(self) -> list[SessionInfo]:
        """Every stored session, most recently updated first. Damaged files are skipped."""
        if not self.root.is_dir():
            return []
        infos = []
        for path in self.root.glob("*.jsonl"):
            if not _ID.fullmatch(path.stem):
                continue
            try:
                infos.append(_info(path))
            except (OSError, ValueError) as exc:
                log.warning("skipping unreadable session file %s: %s", path, exc)
        return sorted(infos, key=lambda i: (i.updated_at, i.id), reverse=True)

    def delete(self, session_id: str) -> None:
        """Delete a stored session and its checkpoints. `SessionNotFoundError` when there is
        no such session."""
        path = self._path(session_id)
        try:
            cwd = _info(path).cwd
        except (OSError, ValueError):
            cwd = None
        try:
            path.unlink()
        except FileNotFoundError:
            raise SessionNotFoundError(f'no session "{session_id}" in {self.root}') from None
        if cwd:
            forget_session(Path(cwd), session_id, state=self.root.parent)


def replay_entry(
    timeline: Timeline,
    views: ConversationViews,
    messages: list[Message],
    record: dict[str, Any],
) -> list[Message]:
    """Take a checkpoint record into account; returns the conversation that continues (the
    view before the target entry after a rewind of the conversation, else `messages`)."""
    entry = timeline.apply(record)
    if record["type"] in ("turn", "rewind"):
        views.take(entry.number, messages)
    if entry.kind == "rewind" and record["type"] == "rewind" and entry.target is not None:
        if entry.restore in ("conversation", "both"):
            return views[entry.target]
    return messages


def _close_dangling_calls(session: Session) -> None:
    """Give every tool call of a trailing assistant message a result (persisted)."""
    if not session.messages:
        return
    last = session.messages[-1]
    if not isinstance(last, AssistantMessage) or not last.tool_calls:
        return
    session.append(
        ToolResultMessage(
            results=[
                ToolResultEntry(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=[TextBlock(text=INTERRUPTED)],
                    is_error=True,
                )
                for call in last.tool_calls
            ]
        )
    )
    log.info(
        "session %s: closed %d tool call(s) left without a result", session.id, len(last.tool_calls)
    )


def _info(path: Path) -> SessionInfo:
    """Summary of one session file without validating every message."""
    mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    created = updated = mtime
    title = ""
    count = 0
    cwd = None
    compactions = 0
    with open(path, "rb") as fh:
        for line in fh:  # binary: split on b"\n" only, like `open`
            try:
                record = json.loads(line.decode("utf-8", "replace"))
            except ValueError:
                continue  # a torn or damaged line; `open` skips it
            if not isinstance(record, dict):
                continue
            if record.get("type") == "session":
                created = updated = _parse_time(record.get("created"), mtime)
                cwd = record.get("cwd")
            elif record.get("type") == "compaction":
                compactions += 1
                updated = _parse_time(record.get("at"), updated)
            elif record.get("type") == "message":
                count += 1
                updated = _parse_time(record.get("at"), updated)
                message = record.get("message") or {}
                if not title and message.get("role") == "user":
                    texts = [
                        b.get("text", "")
                        for b in message.get("content", [])
                        if isinstance(b, dict) and b.get("type") == "text"
                    ]
                    title = title_of("".join(texts))
    return SessionInfo(
        id=path.stem,
        title=title,
        created_at=created,
        updated_at=updated,
        message_count=count,
        cwd=cwd,
        compactions=compactions,
    )

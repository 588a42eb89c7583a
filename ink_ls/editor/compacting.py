"""`ink/session/compact`: a session's older messages summarised on demand, run like a turn of
its own (the session is busy meanwhile; `ink/session/cancel`, `$/cancelRequest` and the
progress token's cancel stop it and leave the conversation as it was)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ink_ls.agent.approval import ApprovalGate
from ink_ls.agent.compaction import CompactionCancelledError, CompactionError
from ink_ls.agent.turn import FrontEnd, TurnBuilder
from ink_ls.agent.writes import ChangeChannel
from ink_ls.core.signal import CancelController
from ink_ls.editor.client import ClientFeatures, EditorClient
from ink_ls.editor.prompter import MessagePrompter
from ink_ls.editor.sessions import LiveSession, SessionBook, Turn, now
from ink_ls.editor.settings import InkSettings
from ink_ls.editor.updates import TurnReporter
from ink_ls.protocol import lsp
from ink_ls.protocol.errors import InkErrorCode, InkRequestError, session_busy
from ink_ls.protocol.methods import PROGRESS_TITLE
from ink_ls.protocol.models import SessionCompactParams, SessionCompactResult

if TYPE_CHECKING:
    from ink_ls.agent.loop import Agent


class CompactingHost(Protocol):
    """What a compaction needs of the editor host (which runs turns)."""

    closing: bool
    sessions: SessionBook
    client: EditorClient
    features: ClientFeatures
    cwd: Path
    builder: TurnBuilder

    @property
    def settings(self) -> InkSettings: ...

    def reporter(
        self, session: LiveSession, turn: Turn, given: str | int | None
    ) -> TurnReporter: ...

    def front(
        self,
        reporter: TurnReporter,
        gate: ApprovalGate,
        changes: ChangeChannel | None = None,
        *,
        with_mcp: bool = True,
    ) -> FrontEnd: ...


async def compact_session(
    host: CompactingHost, params: SessionCompactParams, *, request_id: object | None = None
) -> SessionCompactResult:
    """Summarise the session's older messages now; answered when done (see the module doc)."""
    if host.closing:
        raise InkRequestError(InkErrorCode.SHUTTING_DOWN, "shutting down: no new turns")
    session = host.sessions.get(params.session_id)
    if session.turn is not None:
        raise session_busy(session.session_id)
    turn = Turn(f"c{session.turns + 1}", CancelController(), request_id)
    session.turn = turn
    reporter = host.reporter(session, turn, params.work_done_token)
    try:
        reporter.progress(lsp.progress_begin(PROGRESS_TITLE, "compacting the conversation"))
        gate = ApprovalGate("readonly", MessagePrompter(host.client, host.features))
        async with host.builder.turn(  # no tools run: no changes, no MCP servers
            host.front(reporter, gate, with_mcp=False),
            session,
            settings=host.settings.model,
            cwd=host.cwd,
            signal=turn.controller.signal,
            current=lambda: host.settings.model,
        ) as prepared:
            return await _compact(prepared.agent, session, reporter, turn)
    finally:
        await reporter.settled()  # the progress's end goes out before the answer
        session.turn = None
        session.updated_at = now()
        turn.done.set()


async def _compact(
    agent: Agent, session: LiveSession, reporter: TurnReporter, turn: Turn
) -> SessionCompactResult:
    context = agent.context
    before = context.tokens(
        session.messages, context.system(agent.options.system_prompt), agent.tools.schemas()
    )
    outcome = "done"
    try:
        done = await agent.compact(turn.controller.signal)
    except CompactionCancelledError:
        outcome, done = "cancelled", None
    except CompactionError as exc:
        reporter.progress(lsp.progress_end(f"failed: {exc}"))
        raise InkRequestError(InkErrorCode.COMPACTION_FAILED, str(exc)) from None
    session.usage = reporter.session_usage
    if done is None and outcome == "done":
        outcome = "nothing to compact"
    reporter.progress(lsp.progress_end(outcome))
    return SessionCompactResult(
        session_id=session.session_id,
        compacted=done is not None,
        tokens_before=before,
        tokens_after=done.tokens_after if done else before,
        context_window=context.window or 0,
        cancelled=outcome == "cancelled",
    )

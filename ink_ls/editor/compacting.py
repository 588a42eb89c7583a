"""`ink/session/compact`: a session's older messages summarised on demand, run like a turn of
its own (the session is busy meanwhile; `ink/session/cancel`, `$/cancelRequest` and the
progress token's cancel stop it and leave the conversation as it was)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ink_ls.agent.approval import ApprovalGate
from ink_ls.agent.compaction import CompactionCancelledError, CompactionError
from ink_ls.core.signal import CancelController
from ink_ls.core.tool import DiskWriter
from ink_ls.editor.prompter import MessagePrompter
from ink_ls.editor.sessions import Turn, now
from ink_ls.editor.updates import TurnReporter
from ink_ls.protocol import lsp
from ink_ls.protocol.errors import InkErrorCode, InkRequestError, session_busy
from ink_ls.protocol.methods import PROGRESS_TITLE
from ink_ls.protocol.models import SessionCompactParams, SessionCompactResult

if TYPE_CHECKING:
    from ink_ls.editor.host import Host


async def compact_session(
    host: Host, params: SessionCompactParams, *, request_id: object | None = None
) -> SessionCompactResult:
    """Summarise the session's older messages now; answered when done (see the module doc)."""
    if host.closing:
        raise InkRequestError(InkErrorCode.SHUTTING_DOWN, "shutting down: no new turns")
    session = host.sessions.get(params.session_id)
    if session.turn is not None:
        raise session_busy(session.session_id)
    turn = Turn(f"c{session.turns + 1}", CancelController(), request_id)
    session.turn = turn
    factory = host.deps.factory
    settings = host.settings.model
    model = factory.acquire_model(settings)
    try:
        turn.token = await host.progress_token(params.work_done_token, session, turn.turn_id)
        reporter = TurnReporter(
            host.client,
            session_id=session.session_id,
            turn_id=turn.turn_id,
            cwd=host.cwd,
            progress_token=turn.token,
            session_usage=session.usage,
        )
        reporter.progress(lsp.progress_begin(PROGRESS_TITLE, "compacting the conversation"))
        gate = ApprovalGate("readonly", MessagePrompter(host.client, host.features))
        agent = await host.agent(session, reporter, gate, DiskWriter(), model)  # no tools run
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
    finally:
        await factory.release_model(settings, current=host.settings.model)
        session.turn = None
        session.updated_at = now()
        turn.done.set()

"""Sessions and turns behind the `ink/*` methods: runs the agent for a prompt, one turn at a time.

It wires the agent to the editor (open buffers, approvals, updates, progress) and converges
the three cancel channels on one cancel per turn. It knows no pygls and no JSON-RPC framing.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from ink_ls.agent.approval import ApprovalGate, WaitInterruptedError, wait_answer
from ink_ls.agent.events import OUTCOMES
from ink_ls.agent.factory import AgentFactory
from ink_ls.agent.turn import FrontEnd, TurnBuilder
from ink_ls.agent.user_turn import PlanApproval, run_turn
from ink_ls.agent.writes import ChangeChannel, DiskChannel
from ink_ls.core.config import ModelSettings
from ink_ls.core.signal import CancelController
from ink_ls.core.tool import ToolRegistry
from ink_ls.editor import rewinding
from ink_ls.editor.client import ClientFeatures, EditorClient
from ink_ls.editor.compacting import compact_session
from ink_ls.editor.context import context_line
from ink_ls.editor.diagnostics import EditorDiagnostics
from ink_ls.editor.diagnostics_tool import editor_tools
from ink_ls.editor.documents import OpenDocuments
from ink_ls.editor.intel import EditorIntel
from ink_ls.editor.mcp import EditorMcp
from ink_ls.editor.mentioning import editor_mentions
from ink_ls.editor.prompter import MessagePrompter
from ink_ls.editor.replay import replay
from ink_ls.editor.rewinding import rewinder
from ink_ls.editor.rules import EditorRules, ask_plan_approval, editor_rules
from ink_ls.editor.sessions import LiveSession, SessionBook, Turn, now
from ink_ls.editor.settings import InkSettings
from ink_ls.editor.slash_commands import commands_result
from ink_ls.editor.updates import TurnReporter
from ink_ls.editor.waiting import WatchedPrompter
from ink_ls.editor.writer import EditorChanges
from ink_ls.protocol import lsp
from ink_ls.protocol.errors import InkErrorCode, InkRequestError, session_busy
from ink_ls.protocol.methods import PROGRESS_CREATE
from ink_ls.protocol.models import (
    CommandsResult,
    McpStatusResult,
    SessionChangesParams,
    SessionChangesResult,
    SessionCheckpointsResult,
    SessionCloseParams,
    SessionCompactParams,
    SessionCompactResult,
    SessionListResult,
    SessionLoadResult,
    SessionPromptParams,
    SessionPromptResult,
    SessionRewindParams,
    SessionRewindResult,
    ToolInfo,
    ToolsResult,
    WarningUpdate,
    WireStopReason,
)
from ink_ls.sessions.store import Session, SessionStore, unsaved_message

log = logging.getLogger(__name__)


def _warn_unsaved(stored: Session | None, reporter: TurnReporter) -> None:
    """Warn now if the session is not saved, and whenever saving starts failing."""
    if stored is None:
        return

    def on_save(session: Session, reason: str | None) -> None:
        if reason is not None:
            reporter.send(WarningUpdate(message=unsaved_message(session.id, reason)))

    stored.on_save = on_save
    before = stored.save_error
    if before is None:  # all written, or on its way: nothing to say before the turn
        return
    stored.save()  # what an earlier turn could not write goes out now if it can
    if stored.save_error is not None:  # still failing: say it again
        on_save(stored, stored.save_error)


@dataclass
class HostDeps:
    """What the host builds agents with and keeps sessions in (injected so tests can use
    scripted models and fake tools)."""

    factory: AgentFactory
    store: SessionStore | None = None


class Host:
    """All sessions of one server connection."""

    def __init__(
        self,
        client: EditorClient,
        deps: HostDeps,
        *,
        cwd: Path,
        documents: OpenDocuments,
        features: ClientFeatures,
        settings: InkSettings,
    ) -> None:
        self.client = client
        self.deps = deps
        self.cwd = cwd
        self.documents = documents
        self.features = features
        self.sessions = SessionBook(deps.store, cwd)
        self.builder = TurnBuilder(deps.factory)
        self.closing = False
        self.mcp = EditorMcp(cwd, lambda: self.deps.factory.secret_env(self.settings.model))
        self.diagnostics = EditorDiagnostics(client) if features.diagnostics else None
        """The editor's diagnostics, when the client offers them (`experimental.ink`)."""
        self.intel = (
            EditorIntel(client, documents, self.diagnostics) if features.language_features else None
        )
        """The editor's language servers for the `lsp` tool, when the client offers them."""
        self._closing_models: set[asyncio.Task[None]] = set()
        self._settings = settings
        self.rules = EditorRules()
        """The settings files' and the editor's permission rules (loaded for each turn)."""

    @property
    def settings(self) -> InkSettings:
        """The settings new turns use (a running turn keeps those it started with)."""
        return self._settings

    @settings.setter
    def settings(self, settings: InkSettings) -> None:
        """New settings; the client of replaced model settings closes now if no turn uses it
        (else when the last turn using it ends: `release_model`)."""
        self._settings = settings
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (never the case in the server): closed at a turn's end
            return
        task = loop.create_task(self.close_models(keep=settings.model))
        self._closing_models.add(task)
        task.add_done_callback(self._closing_models.discard)

    async def close_models(self, *, keep: ModelSettings | None = None) -> None:
        """Close the model clients no turn uses (all of them but `keep`'s)."""
        await self.deps.factory.close_models(keep=keep)

    # ---- sessions ---------------------------------------------------------------------------

    def list_sessions(self) -> SessionListResult:
        """This workspace's sessions (live and stored), most recently updated first."""
        return SessionListResult(sessions=self.sessions.infos())

    def load(self, session_id: str) -> SessionLoadResult:
        """`ink/session/load`: replay a live or stored session to the editor (-32002 while a
        turn runs: its history is still growing)."""
        session = self.sessions.get(session_id)
        if session.turn is not None:
            raise session_busy(session_id)
        tools = self.deps.factory.tools(self.cwd, self.settings.model)
        return replay(self.client, session, self.cwd, tools)

    async def close(self, params: SessionCloseParams) -> None:
        """Cancel a running turn, wait for it, forget the session (and delete it if asked)."""
        await self.sessions.close(params.session_id, delete=params.delete)

    async def tools(self) -> ToolsResult:
        """Built-in tools, then the MCP servers' (starting them if they are not yet)."""
        hub = await self.mcp.start(self.settings)
        own = editor_tools(self.deps.factory.tools(self.cwd, self.settings.model), self.diagnostics)
        registry = ToolRegistry(list(own), [hub])
        servers = {t.name: t.server_name for t in hub.tools_of_all()}
        return ToolsResult(
            tools=[
                ToolInfo(
                    name=t.name,
                    description=t.description,
                    parameters=t.parameters(),
                    concurrency_safe=t.concurrency_safe,
                    server=servers.get(t.name),
                )
                for t in registry
            ]
        )

    def commands(self) -> CommandsResult:
        """`ink/commands`: the built-in slash commands and the prompt files (`agent.commands`)."""
        return commands_result(self.cwd)

    async def mcp_status(self) -> McpStatusResult:
        """`ink/mcp/status`: every configured MCP server, started if it may start."""
        return await self.mcp.status(self.settings)

    # ---- cancel -------------------------------------------------------------------------------

    def cancel(self, session_id: str) -> None:
        """`ink/session/cancel`: cancel the session's running turn (no-op when idle)."""
        turn = self.sessions.get(session_id).turn
        if turn is not None:
            turn.controller.cancel("cancelled by the user")

    def cancel_request(self, request_id: object) -> bool:
        """`$/cancelRequest`: True when the id was a running prompt (now cancelled)."""
        for turn in self.sessions.running():
            if turn.request_id == request_id:
                turn.controller.cancel("cancelled by the user")
                return True
        return False

    def cancel_token(self, token: object) -> bool:
        """`window/workDoneProgress/cancel`: True when the token was a running turn's."""
        for turn in self.sessions.running():
            if turn.token is not None and turn.token == token:
                turn.controller.cancel("cancelled by the user")
                return True
        return False

    async def shutdown(self, timeout: float) -> None:
        """Cancel every running turn and wait (at most `timeout` s) for them to answer."""
        self.closing = True
        turns = self.sessions.running()
        for turn in turns:
            turn.controller.cancel("server shutting down")
        if turns:
            await asyncio.wait(
                [asyncio.ensure_future(t.done.wait()) for t in turns], timeout=timeout
            )
        await self.sessions.flush_all()
        await self.close_models()
        await self.deps.factory.close_language_servers()
        await self.mcp.close()

    def front(
        self,
        reporter: TurnReporter,
        gate: ApprovalGate,
        changes: ChangeChannel | None = None,
        *,
        with_mcp: bool = True,
    ) -> FrontEnd:
        """What the editor brings to a turn of one session (or to an on-demand compaction:
        no changes, no MCP servers)."""
        diagnostics = self.diagnostics
        return FrontEnd(
            kind="editor",
            gate=gate,
            changes=changes if changes is not None else DiskChannel(self.cwd),
            files=self.documents,
            on_event=reporter.on_event,
            mcp=self.mcp.hub_for(self.settings) if with_mcp else None,
            trust=self.mcp.trust_for(self.settings) if with_mcp else None,
            adapt_tools=lambda tools: editor_tools(tools, diagnostics),
            code_intel=self.intel,
            settings_sections=editor_rules(self.settings),
            checkpoint_settings=self.settings.checkpoints,
        )

    def prompt_front(
        self, front: FrontEnd, session: LiveSession, params: SessionPromptParams
    ) -> FrontEnd:
        """`front` with what this prompt brings: its document as context, `@selection`,
        `@problems` and `/rewind` on the stored session."""
        return replace(
            front,
            mentions=editor_mentions(params, self.documents, self.cwd, self.diagnostics),
            context=context_line(params, self.documents, self.cwd),
            rewind=rewinder(session),
        )

    # ---- prompt ---------------------------------------------------------------------------------

    def progress_token(
        self, given: str | int | None, session: LiveSession, turn_id: str
    ) -> str | int | None:
        """The turn's progress token: the client's, else ours when the client creates tokens
        (None: no progress)."""
        if given is not None or not self.features.work_done_progress:
            return given
        # `ink-<sessionId>-<turnId>` (protocol.md): unique among running turns, as LSP asks of
        # a progress token, since a session runs one turn at a time; and a client can tell
        # the turn from the token alone.
        return f"ink-{session.session_id}-{turn_id}"

    async def _create_token(self, token: str | int, turn: Turn) -> bool:
        """Ask the client to create our token; False (the turn runs without progress) when
        it refuses."""
        try:
            await self.client.request(PROGRESS_CREATE, lsp.create_progress_params(token))
        except Exception as exc:  # the client refused: run without progress
            log.info("progress token refused: %s", exc)
            turn.token = None
            return False
        return True

    def reporter(self, session: LiveSession, turn: Turn, given: str | int | None) -> TurnReporter:
        """Where a turn of `session` reports (updates, and progress under its token). Our own
        token is created while the turn starts, not before it: its progress waits for it."""
        turn.token = self.progress_token(given, session, turn.turn_id)
        reporter = TurnReporter(
            self.client,
            session_id=session.session_id,
            turn_id=turn.turn_id,
            cwd=self.cwd,
            progress_token=turn.token,
            session_usage=session.usage,
        )
        if given is None and turn.token is not None:
            reporter.hold_progress(self._create_token(turn.token, turn))
        return reporter

    async def prompt(
        self, params: SessionPromptParams, *, request_id: object | None = None
    ) -> SessionPromptResult:
        """Run one turn; answered when it ends (cancel → `cancelled`, not an error)."""
        if self.closing:
            raise InkRequestError(InkErrorCode.SHUTTING_DOWN, "shutting down: no new turns")
        if params.session_id is not None:
            session = self.sessions.get(params.session_id)
            if session.turn is not None:
                raise session_busy(session.session_id)
        else:
            session = self.sessions.new(params.prompt)
        session.turns += 1
        turn = Turn(f"t{session.turns}", CancelController(), request_id)
        session.turn = turn
        try:
            return await self._run_turn(session, turn, params)
        finally:
            session.turn = None
            session.updated_at = now()
            turn.done.set()

    async def _run_turn(
        self, session: LiveSession, turn: Turn, params: SessionPromptParams
    ) -> SessionPromptResult:
        settings = self.settings
        reporter = self.reporter(session, turn, params.work_done_token)
        reporter.begin(params.prompt)
        stop: WireStopReason
        text, error = "", None
        try:
            prompt = params.prompt  # the turn builder adds @-mentions and the context line
            # every question the user must answer shows as "waiting for approval" in progress
            prompter = WatchedPrompter(MessagePrompter(self.client, self.features), reporter)
            gate = ApprovalGate(
                settings.approval,
                prompter,
                settings.approval_timeout,
                always_allowed=session.always_allowed,
            )
            changes = EditorChanges(
                self.client,
                self.features,
                self.documents,
                self.cwd,
                prompter,
                settings.approval_timeout,
                watch=reporter,
            )
            _warn_unsaved(session.stored, reporter)
            async with self.builder.turn(
                self.prompt_front(self.front(reporter, gate, changes), session, params),
                session,
                settings=settings.model,
                cwd=self.cwd,
                signal=turn.controller.signal,
                current=lambda: self.settings.model,
                session_id=session.session_id,
                prompt=params.prompt,
                checkpoints=session.stored,
            ) as prepared:
                self.rules.report(prepared.notices, reporter.send)
                approve = self._plan_approval(turn)
                result = await run_turn(prepared, gate, prompt, turn.controller.signal, approve)
            stop = OUTCOMES[result.stop_reason]
            text, error = result.text, result.error
        except Exception as exc:  # never a traceback to the client; the turn still ends
            log.exception("turn failed")
            stop, error = "error", f"internal error: {exc}"
        finally:
            if session.stored is not None:
                # the turn's history is written (or said to be unsaved) before it ends
                await session.stored.flush()
                session.stored.on_save = None  # the next turn reports to its own reporter
        if stop != "error":
            error = None
        session.usage = reporter.session_usage
        reporter.end(stop, error)
        await reporter.settled()  # the progress's end goes out before the answer, as it did
        return SessionPromptResult(
            session_id=session.session_id,
            turn_id=turn.turn_id,
            stop_reason=stop,
            text=text,
            error=error,
        )

    def _plan_approval(self, turn: Turn) -> PlanApproval:
        """Plan mode's "Approve and continue in ask/auto mode", as a message request."""

        async def approve(plan: str) -> Literal["ask", "auto"] | None:
            try:
                return await wait_answer(
                    ask_plan_approval(
                        self.client, plan, option_ids=self.features.action_option_ids
                    ),
                    timeout=self.settings.approval_timeout,
                    signal=turn.controller.signal,
                )
            except WaitInterruptedError:
                return None

        return approve

    # ---- checkpoints -------------------------------------------------------------------------

    def checkpoints(self, session_id: str) -> SessionCheckpointsResult:
        """`ink/session/checkpoints` (see `editor.rewinding`)."""
        return rewinding.checkpoints(self, session_id)

    async def changes(self, params: SessionChangesParams) -> SessionChangesResult:
        """`ink/session/changes` (see `editor.rewinding`)."""
        return await rewinding.changes(self, params)

    async def rewind(self, params: SessionRewindParams) -> SessionRewindResult:
        """`ink/session/rewind` (see `editor.rewinding`); answered once its records are written."""
        try:
            return await rewinding.rewind_session(self, params)
        finally:
            await self.sessions.flush(params.session_id)

    # ---- compact --------------------------------------------------------------------------------

    async def compact(
        self, params: SessionCompactParams, *, request_id: object | None = None
    ) -> SessionCompactResult:
        """`ink/session/compact` (see `editor.compacting`); answered once it is written."""
        try:
            return await compact_session(self, params, request_id=request_id)
        finally:
            await self.sessions.flush(params.session_id)

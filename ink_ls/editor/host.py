"""Sessions and turns behind the `ink/*` methods: runs the agent for a prompt, one turn at a time.

It wires the agent to the editor (open buffers, approvals, updates, progress) and converges
the three cancel channels on one cancel per turn. It knows no pygls and no JSON-RPC framing.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from ink_ls.agent.approval import ApprovalGate
from ink_ls.agent.compaction import Compaction, CompactionCancelledError, CompactionError
from ink_ls.agent.gate import Gate
from ink_ls.agent.instructions import ProjectInstructions
from ink_ls.agent.loop import Agent, AgentOptions
from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import Message
from ink_ls.core.signal import CancelController
from ink_ls.core.tool import DiskWriter, FileWriter, ToolRegistry
from ink_ls.editor.client import ClientFeatures, EditorClient
from ink_ls.editor.context import prompt_with_context
from ink_ls.editor.diagnostics import EditorDiagnostics
from ink_ls.editor.diagnostics_tool import editor_tools
from ink_ls.editor.documents import OpenDocuments
from ink_ls.editor.prompter import MessagePrompter
from ink_ls.editor.sessions import LiveSession, SessionBook, Turn, now
from ink_ls.editor.settings import InkSettings
from ink_ls.editor.updates import TurnReporter
from ink_ls.editor.waiting import WatchedPrompter
from ink_ls.editor.writer import ApprovingWriter
from ink_ls.model.base import Model
from ink_ls.model.window import resolve_context_window
from ink_ls.protocol.errors import InkErrorCode, InkRequestError, session_busy
from ink_ls.protocol.methods import PROGRESS_CREATE
from ink_ls.protocol.models import (
    SessionCloseParams,
    SessionCompactParams,
    SessionCompactResult,
    SessionListResult,
    SessionPromptParams,
    SessionPromptResult,
    ToolInfo,
    ToolsResult,
    WireStopReason,
)
from ink_ls.sessions.store import SessionStore

log = logging.getLogger(__name__)

ModelFactory = Callable[[ModelSettings], Model]
ToolsFactory = Callable[[Path, tuple[str, ...]], ToolRegistry]
"""(workspace root, names of environment variables commands must not inherit) → tools."""
PromptFactory = Callable[[Path, ToolRegistry], str]
WindowLookup = Callable[[ModelSettings], Awaitable[int]]

_STOPS: dict[str, WireStopReason] = {
    "completed": "end_turn",
    "max_iterations": "max_turn_requests",
    "aborted": "cancelled",
    "error": "error",
}


def _ignore(message: Message) -> None:
    return None


def _ignore_compaction(compaction: Compaction) -> None:
    return None


@dataclass
class HostDeps:
    """What the host builds per turn; injected so tests can use scripted models and fake tools."""

    make_model: ModelFactory
    make_tools: ToolsFactory
    system_prompt: PromptFactory = lambda cwd, tools: ""
    store: SessionStore | None = None
    max_turns: int = 100
    grace_seconds: float = 10.0
    context_window: WindowLookup = resolve_context_window


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
        self.settings = settings
        self.sessions = SessionBook(deps.store, cwd)
        self.closing = False
        self._tokens = itertools.count(1)
        self._models: dict[ModelSettings, Model] = {}
        self._windows: dict[ModelSettings, int] = {}
        self.diagnostics = EditorDiagnostics(client) if features.diagnostics else None
        """The editor's diagnostics, when the client offers them (`experimental.ink`)."""

    def _model_for(self, settings: ModelSettings) -> Model:
        """One model client per settings, reused across turns (a new client costs ~30 ms of
        TLS set-up); clients of replaced settings are closed when no turn uses them."""
        model = self._models.get(settings)
        if model is None:
            model = self._models[settings] = self.deps.make_model(settings)
        return model

    async def _window_for(self, settings: ModelSettings) -> int:
        """The context window of these settings (looked up once per settings)."""
        window = self._windows.get(settings)
        if window is None:
            window = self._windows[settings] = await self.deps.context_window(settings)
        return window

    async def _agent(
        self, session: LiveSession, reporter: TurnReporter, gate: Gate, writer: FileWriter
    ) -> Agent:
        """The agent of one turn (or of an on-demand compaction) of `session`."""
        settings = self.settings
        tools = editor_tools(self.deps.make_tools(self.cwd, self._secret_env()),
                             self.diagnostics)
        options = AgentOptions(
            cwd=self.cwd,
            system_prompt=self.deps.system_prompt(self.cwd, tools),
            max_turns=self.deps.max_turns,
            grace_seconds=self.deps.grace_seconds,
            context_window=await self._window_for(settings.model),
            compact_threshold=settings.model.compact_threshold,
        )
        if session.instructions is None:
            session.instructions = ProjectInstructions(self.cwd)
        stored = session.stored
        return Agent(
            self._model_for(settings.model),
            tools,
            options,
            history=session.messages,
            gate=gate,
            files=self.documents,
            writer=writer,
            on_event=reporter.on_event,
            on_message=stored.append if stored else _ignore,
            on_compaction=stored.record_compaction if stored else _ignore_compaction,
            instructions=session.instructions,
        )

    async def close_models(self, *, keep: ModelSettings | None = None) -> None:
        """Close model clients (all, or all but `keep`'s)."""
        for settings in [s for s in self._models if s != keep]:
            close = getattr(self._models.pop(settings), "aclose", None)
            if close is not None:
                await close()

    # ---- sessions ---------------------------------------------------------------------------

    def list_sessions(self) -> SessionListResult:
        """This workspace's sessions (live and stored), most recently updated first."""
        return SessionListResult(sessions=self.sessions.infos())

    async def close(self, params: SessionCloseParams) -> None:
        """Cancel a running turn, wait for it, forget the session (and delete it if asked)."""
        await self.sessions.close(params.session_id, delete=params.delete)

    def tools(self) -> ToolsResult:
        registry = editor_tools(self.deps.make_tools(self.cwd, self._secret_env()),
                                self.diagnostics)
        return ToolsResult(
            tools=[
                ToolInfo(
                    name=t.name,
                    description=t.description,
                    parameters=t.parameters(),
                    concurrency_safe=t.concurrency_safe,
                )
                for t in registry
            ]
        )

    def _secret_env(self) -> tuple[str, ...]:
        names = ["INK_API_KEY", "OPENAI_API_KEY"]
        if self.settings.model.api_key_env:
            names.append(self.settings.model.api_key_env)
        return tuple(names)

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
            await asyncio.wait([asyncio.ensure_future(t.done.wait()) for t in turns],
                               timeout=timeout)
        await self.close_models()

    # ---- prompt ---------------------------------------------------------------------------------

    async def _progress_token(self, given: str | int | None, session: LiveSession,
                              turn_id: str) -> str | int | None:
        if given is not None:
            return given
        if not self.features.work_done_progress:
            return None
        token = f"ink-{session.session_id}-{turn_id}-{next(self._tokens)}"
        try:
            await self.client.request(PROGRESS_CREATE, {"token": token})
        except Exception as exc:  # the client refused: run without progress
            log.info("progress token refused: %s", exc)
            return None
        return token

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
        turn.token = await self._progress_token(params.work_done_token, session, turn.turn_id)
        reporter = TurnReporter(
            self.client,
            session_id=session.session_id,
            turn_id=turn.turn_id,
            cwd=self.cwd,
            progress_token=turn.token,
            session_usage=session.usage,
        )
        reporter.begin(params.prompt)
        stop: WireStopReason
        text, error = "", None
        try:
            prompt = prompt_with_context(params, self.documents, self.cwd)
            # every question the user must answer shows as "waiting for approval" in progress
            prompter = WatchedPrompter(MessagePrompter(self.client, self.features), reporter)
            gate = ApprovalGate(settings.approval, prompter, settings.approval_timeout,
                                always_allowed=session.always_allowed)
            writer = ApprovingWriter(
                self.client, self.features, self.documents, self.cwd, settings.approval,
                prompter, settings.approval_timeout, session.always_allowed, watch=reporter,
            )
            agent = await self._agent(session, reporter, gate, writer)
            result = await agent.run(prompt, turn.controller.signal)
            stop = _STOPS[result.stop_reason]
            if stop == "end_turn" and reporter.last_stop == "max_tokens":
                stop = "max_tokens"
            text, error = result.text, result.error
        except Exception as exc:  # never a traceback to the client; the turn still ends
            log.exception("turn failed")
            stop, error = "error", f"internal error: {exc}"
        if stop != "error":
            error = None
        session.usage = reporter.session_usage
        reporter.end(stop, error)
        return SessionPromptResult(
            session_id=session.session_id,
            turn_id=turn.turn_id,
            stop_reason=stop,
            text=text,
            error=error,
        )

    # ---- compact --------------------------------------------------------------------------------

    async def compact(
        self, params: SessionCompactParams, *, request_id: object | None = None
    ) -> SessionCompactResult:
        """`ink/session/compact`: summarise the session's older messages now (a turn of its
        own: the session is busy meanwhile and `ink/session/cancel` stops it unchanged)."""
        if self.closing:
            raise InkRequestError(InkErrorCode.SHUTTING_DOWN, "shutting down: no new turns")
        session = self.sessions.get(params.session_id)
        if session.turn is not None:
            raise session_busy(session.session_id)
        turn = Turn(f"c{session.turns + 1}", CancelController(), request_id)
        session.turn = turn
        try:
            turn.token = await self._progress_token(params.work_done_token, session,
                                                    turn.turn_id)
            reporter = TurnReporter(self.client, session_id=session.session_id,
                                    turn_id=turn.turn_id, cwd=self.cwd,
                                    progress_token=turn.token, session_usage=session.usage)
            reporter.progress({"kind": "begin", "title": "Ink", "cancellable": True,
                               "message": "compacting the conversation"})
            gate = ApprovalGate("readonly", MessagePrompter(self.client, self.features))
            agent = await self._agent(session, reporter, gate, DiskWriter())  # runs no tools
            window = agent.context.window or 0
            before = agent.context.tokens(
                session.messages, agent.context.system(agent.options.system_prompt),
                agent.tools.schemas())
            outcome = "done"
            try:
                done = await agent.compact(turn.controller.signal)
            except CompactionCancelledError:
                outcome, done = "cancelled", None
            except CompactionError as exc:
                reporter.progress({"kind": "end", "message": f"failed: {exc}"})
                raise InkRequestError(InkErrorCode.COMPACTION_FAILED, str(exc)) from None
            session.usage = reporter.session_usage
            reporter.progress({"kind": "end", "message": outcome if done or outcome != "done"
                               else "nothing to compact"})
            return SessionCompactResult(
                session_id=session.session_id, compacted=done is not None,
                tokens_before=before, tokens_after=done.tokens_after if done else before,
                context_window=window, cancelled=outcome == "cancelled",
            )
        finally:
            session.turn = None
            session.updated_at = now()
            turn.done.set()


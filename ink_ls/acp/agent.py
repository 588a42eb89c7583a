"""The ACP agent: `initialize`, `session/new`, `session/load`, `session/set_mode`,
`session/prompt` and `session/cancel`, on the `agent-client-protocol` SDK.

Every turn's agent comes from the one `AgentFactory`; sessions live in the same store as the
editor's and the terminal's (`ink-ls sessions` lists them). Errors reach the client as JSON-RPC
errors with a sentence, never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from acp import PROTOCOL_VERSION, RequestError
from acp.helpers import (
    update_agent_message_text,
    update_available_commands,
    update_current_mode,
)
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    Usage,
)

from ink_ls import __version__
from ink_ls.acp.commands import acp_commands
from ink_ls.acp.files import ClientChanges, ClientFiles
from ink_ls.acp.mcp import acp_servers
from ink_ls.acp.outbox import Outbox
from ink_ls.acp.permission import Permissions
from ink_ls.acp.terminal import display_terminal
from ink_ls.acp.updates import UpdateMapper, describer, prompt_blocks
from ink_ls.agent.approval import ApprovalGate
from ink_ls.agent.events import OUTCOMES, AgentEvent
from ink_ls.agent.factory import AgentFactory
from ink_ls.agent.trust import workspace_trust
from ink_ls.agent.turn import FrontEnd, TurnBuilder
from ink_ls.agent.user_turn import PlanApproval, run_turn
from ink_ls.core.config import ApprovalMode, ConfigError, ModelSettings
from ink_ls.core.messages import UserMessage, text_of
from ink_ls.core.signal import CancelController
from ink_ls.core.tool import DiskFiles
from ink_ls.core.trust import WorkspaceTrust
from ink_ls.mcp.hub import McpHub
from ink_ls.sessions import rewind_command
from ink_ls.sessions.conversation import StoredConversation
from ink_ls.sessions.store import Session, SessionError, SessionNotFoundError, SessionStore
from ink_ls.sessions.writer import shared_writer

log = logging.getLogger(__name__)

MODES = [
    SessionMode(
        id="ask", name="Ask", description="File changes and commands ask for your permission"
    ),
    SessionMode(id="auto", name="Auto", description="Changes and commands run without asking"),
    SessionMode(
        id="readonly",
        name="Read only",
        description="Reads and searches only; changes and commands are refused",
    ),
    SessionMode(
        id="plan",
        name="Plan",
        description="Reads only, then shows a plan to approve; it goes on in Ask or Auto",
    ),
]
MODE_IDS = tuple(m.id for m in MODES)


@dataclass
class AcpSession:
    """One ACP session: its stored history, approvals, MCP servers and the running turn."""

    stored: Session
    cwd: Path
    gate: ApprovalGate
    mapper: UpdateMapper
    mcp_servers: list[Any] = field(default_factory=list)
    """The client's MCP servers, as given (`session/new`, `session/load`)."""
    hub: McpHub | None = None
    """Those servers with the user's and the workspace's (the turn builder starts them)."""
    trust: WorkspaceTrust | None = None
    """The trust decision of the session's workspace (shared by the connection's sessions)."""
    conversation: StoredConversation | None = None
    turn: CancelController | None = None


def _mode_state(mode: ApprovalMode) -> SessionModeState:
    return SessionModeState(current_mode_id=mode, available_modes=MODES)


def _cwd(value: str) -> Path:
    path = Path(value)
    if not path.is_absolute() or not path.is_dir():
        raise RequestError.invalid_params(
            {"message": f"cwd must be an absolute path of a directory; got {value!r}"}
        )
    return path


class InkAcpAgent:
    """The `acp.Agent` of `ink-ls --acp`: one per connection."""

    def __init__(
        self,
        factory: AgentFactory,
        *,
        store: SessionStore | None = None,
        settings: Callable[[], ModelSettings] = ModelSettings.from_env,
        mode: ApprovalMode = "ask",
        trust_workspace: bool | None = None,
    ) -> None:
        self._trust_workspace = trust_workspace
        self._trusts: dict[Path, WorkspaceTrust] = {}
        self._factory = factory
        self._builder = TurnBuilder(factory)
        self._store = store if store is not None else SessionStore()
        self._settings = settings
        self._mode = mode
        self._conn: Client | None = None
        self._caps = ClientCapabilities()
        self._sessions: dict[str, AcpSession] = {}
        self._closing: list[McpHub] = []
        """Hubs of sessions replaced by `session/load`, stopped before the next start."""
        self.outbox = Outbox(self._send)

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    def _client(self) -> Client:
        if self._conn is None:
            raise RuntimeError("no client connection")
        return self._conn

    async def _send(self, session_id: str, update: Any) -> None:
        await self._client().session_update(session_id=session_id, update=update)

    # ---- set-up ----------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        if client_capabilities is not None:
            self._caps = client_capabilities
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
            ),
            agent_info=Implementation(name="ink-ls", title="Ink", version=__version__),
        )

    def _open(
        self, stored: Session, cwd: Path, mcp_servers: list[Any] | None, meta: Any = None
    ) -> AcpSession:
        stored.writer = shared_writer()  # its lines are written off the event loop
        # titles and kinds of replayed calls come from the tools themselves
        tools = self._factory.tools(cwd, ModelSettings())
        trust = self._trust(cwd, meta)
        session = AcpSession(
            stored=stored,
            cwd=cwd,
            gate=ApprovalGate(self._mode),
            mapper=UpdateMapper(cwd, describer(tools, cwd), terminals=display_terminal(self._caps)),
            mcp_servers=list(mcp_servers or []),
            conversation=StoredConversation.of(stored),
            hub=McpHub.for_workspace(cwd, acp_servers(mcp_servers), secret_env=self._secret_env()),
            trust=trust,
        )
        old = self._sessions.get(stored.id)
        if old is not None and old.hub is not None:
            self._closing.append(old.hub)
        self._sessions[stored.id] = session
        self.outbox.post(stored.id, update_available_commands(acp_commands(cwd)))
        return session

    def _secret_env(self) -> tuple[str, ...]:
        try:
            return self._settings().secret_env_names()
        except ConfigError:
            return ModelSettings().secret_env_names()

    def _trust(self, cwd: Path, meta: Any) -> WorkspaceTrust:
        """The connection's trust of `cwd`; `_meta.ink.trustWorkspace` (true/false) of
        `session/new` / `session/load` states it, else `--trust-workspace`, else the turn
        builder asks (`session/request_permission`) before the first prompt runs."""
        trust = self._trusts.get(cwd)
        if trust is None:
            trust = workspace_trust(cwd, explicit=self._trust_workspace, interactive=True)
            self._trusts[cwd] = trust
        stated = meta.get("trustWorkspace") if isinstance(meta, dict) else None
        if isinstance(stated, bool):
            trust.explicit = stated
        return trust

    async def _stop_replaced(self) -> None:
        """Stop the servers of sessions replaced by `session/load`."""
        while self._closing:
            await self._closing.pop().close()

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        root = _cwd(cwd)
        try:
            stored = self._store.create(cwd=root)
        except (SessionError, OSError) as exc:
            raise RequestError.internal_error(
                {"message": f"cannot create a session: {exc}"}
            ) from None
        self._open(stored, root, mcp_servers, kwargs.get("ink"))
        await self._stop_replaced()
        return NewSessionResponse(session_id=stored.id, modes=_mode_state(self._mode))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        root = _cwd(cwd)
        live = self._sessions.get(session_id)
        if live is not None and live.turn is not None:
            raise RequestError.invalid_request(
                {"message": f"session {session_id} is running a prompt; cancel it first"}
            )
        try:
            stored = self._store.open(session_id)
        except SessionNotFoundError:
            raise RequestError.resource_not_found(session_id) from None
        except (SessionError, ValueError, OSError) as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        session = self._open(stored, root, mcp_servers, kwargs.get("ink"))
        await self._stop_replaced()
        assert session.conversation is not None
        for update in session.mapper.replay(session.conversation.messages):
            self.outbox.post(session_id, update)
        await self.outbox.flush()
        return LoadSessionResponse(modes=_mode_state(session.gate.mode))

    def _session(self, session_id: str) -> AcpSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params(
                {"message": f"unknown session {session_id!r}; create or load it first"}
            )
        return session

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        session = self._session(session_id)
        if mode_id not in MODE_IDS:
            raise RequestError.invalid_params(
                {"message": f"unknown mode {mode_id!r}; the modes are {', '.join(MODE_IDS)}"}
            )
        session.gate.mode = mode_id  # type: ignore[assignment]
        self.outbox.post(session_id, update_current_mode(mode_id))
        return SetSessionModeResponse()

    # ---- turns -------------------------------------------------------------------------------

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is not None and session.turn is not None:
            session.turn.cancel("cancelled by the user")

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        if session.turn is not None:
            raise RequestError.invalid_request(
                {"message": f"session {session_id} is already running a prompt"}
            )
        try:
            message = UserMessage(content=prompt_blocks(prompt))
            settings = self._settings()
        except (ValueError, ConfigError) as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        assert session.conversation is not None
        typed = text_of(message.content)
        if rewind_command.is_rewind(typed):
            answer = await rewind_command.run_rewind(session.stored, typed)
            session.conversation.messages[:] = session.stored.messages  # continue from there
            session.conversation.wire.invalidate()
            await session.stored.flush()
            self.outbox.post(session_id, update_agent_message_text(answer))
            await self.outbox.flush()
            return PromptResponse(stop_reason="end_turn")
        session.turn = controller = CancelController()
        try:
            async with self._builder.turn(
                self._front(session),
                session.conversation,
                settings=settings,
                cwd=session.cwd,
                signal=controller.signal,
                session_id=session.stored.id,
                prompt=typed,
                checkpoints=session.stored,
            ) as prepared:
                for notice in prepared.notices:  # no place to show them over ACP: the log
                    log.warning("%s", notice)
                result = await run_turn(
                    prepared,
                    session.gate,
                    message,
                    controller.signal,
                    self._plan_approval(session),
                )
        finally:
            session.turn = None
            await session.stored.flush()  # the turn's history is written before it ends
            await self.outbox.flush()
        if result.stop_reason == "error":
            raise RequestError.internal_error({"message": result.error or "the turn failed"})
        usage = result.usage
        return PromptResponse(
            stop_reason=OUTCOMES[result.stop_reason],
            usage=Usage(
                total_tokens=usage.input_tokens + usage.output_tokens,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cached_read_tokens=usage.cache_read_tokens or None,
            ),
        )

    def _plan_approval(self, session: AcpSession) -> PlanApproval:
        """The plan as a permission request: Approve and continue in Ask / Auto switches the
        session's mode (the client is told: `current_mode_update`)."""
        sid = session.stored.id

        async def approve(plan: str) -> Literal["ask", "auto"] | None:
            mode = await Permissions(self._client, self.outbox, sid).plan(plan)
            if mode is not None:
                self.outbox.post(sid, update_current_mode(mode))
            return mode

        return approve

    def _front(self, session: AcpSession) -> FrontEnd:
        sid = session.stored.id
        permissions = Permissions(self._client, self.outbox, sid)
        session.gate.prompter = permissions
        fs = self._caps.fs
        client = self._client()

        def on_event(event: AgentEvent) -> None:
            for update in session.mapper.updates(event):
                self.outbox.post(sid, update)

        return FrontEnd(
            kind="acp",
            gate=session.gate,
            changes=ClientChanges(
                permissions.change,
                client if fs is not None and fs.write_text_file else None,
                sid,
                session.cwd,
            ),
            files=(
                ClientFiles(client, sid) if fs is not None and fs.read_text_file else DiskFiles()
            ),
            on_event=on_event,
            mcp=session.hub,
            trust=session.trust,
        )

    async def close(self) -> None:
        """The connection ended: cancel running turns, close model clients."""
        for session in self._sessions.values():
            if session.turn is not None:
                session.turn.cancel("the client disconnected")
        await self.outbox.close()
        await self._factory.close_models()
        await self._factory.close_language_servers()
        hubs = [s.hub for s in self._sessions.values() if s.hub is not None] + self._closing
        self._closing = []
        for hub in hubs:
            await hub.close()

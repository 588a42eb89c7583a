"""One turn, built in one place for every front end (the editor host, the terminal, ACP).

A front end translates its protocol into a `FrontEnd` (its approval gate, the channel its file
changes go through, its file view, its event sink, its MCP servers) and a `Conversation` (the
session's history and what records it), and asks `TurnBuilder.turn` for a ready agent. The
builder applies what must not differ between front ends: the model client and its window,
project instructions, the workspace trust and the MCP servers it allows, compaction recorded
in the session, the one write policy (`agent.writes`) and the turn's checkpoint (the
workspace recorded before its first change and at its end: `checkpoints`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ink_ls.agent.approval import ApprovalGate
from ink_ls.agent.builtins import Rewinder
from ink_ls.agent.checkpointing import CheckpointGate
from ink_ls.agent.commands import builtin_call
from ink_ls.agent.compaction import Compaction
from ink_ls.agent.composing import Composer
from ink_ls.agent.events import EventSink, ignore_events
from ink_ls.agent.factory import AgentFactory, AgentParts
from ink_ls.agent.gate import Gate
from ink_ls.agent.instructions import ProjectInstructions
from ink_ls.agent.mentions import MentionSources
from ink_ls.agent.permissions import Permissions, trust_covers
from ink_ls.agent.plan_mode import enter_plan
from ink_ls.agent.trust import trust_asker
from ink_ls.agent.writes import ChangeChannel, DiskChannel, PolicyWriter
from ink_ls.checkpoints.recorder import Journal, TurnCheckpoint, begin_turn
from ink_ls.checkpoints.settings import CheckpointSettings
from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import Message
from ink_ls.core.settings_files import Settings, load_settings
from ink_ls.core.signal import NEVER, CancelSignal
from ink_ls.core.tool import AnyTool, DiskFiles, FileView, ToolRegistry, ToolSource
from ink_ls.core.trust import WorkspaceTrust
from ink_ls.mcp.hub import McpHub
from ink_ls.model.base import ContextWindow
from ink_ls.model.wire import WireCache

if TYPE_CHECKING:  # the loop loads with the first agent, not with the server
    from ink_ls.agent.loop import Agent
    from ink_ls.hooks.engine import Hooks
    from ink_ls.tools.lsp_answers import CodeIntel
    from ink_ls.tools.sandbox import SandboxSettings

FrontEndKind = Literal["editor", "terminal", "acp"]


class Conversation(Protocol):
    """A session as a turn sees it: the history (the agent appends to it), the project
    instructions loaded so far, and where new messages and compactions are recorded."""

    messages: list[Message]
    instructions: ProjectInstructions | None
    wire: WireCache
    """The wire form of `messages`, built once per message across turns (its owner
    invalidates it when it replaces the history: a rewind)."""

    def record(self, message: Message) -> None: ...

    def record_compaction(self, compaction: Compaction) -> None: ...


@dataclass
class MemoryConversation:
    """A conversation kept only in memory (tests, benchmarks, sub-agent-like uses)."""

    messages: list[Message] = field(default_factory=list)
    instructions: ProjectInstructions | None = None
    wire: WireCache = field(default_factory=WireCache)

    def record(self, message: Message) -> None:
        return None

    def record_compaction(self, compaction: Compaction) -> None:
        return None


def _same_tools(tools: ToolRegistry) -> ToolRegistry:
    return tools


@dataclass(frozen=True)
class FrontEnd:
    """What a front end brings to a turn; everything else the builder decides."""

    kind: FrontEndKind
    gate: ApprovalGate
    """The session's approvals: mode, "always" answers, timeout, and who asks."""
    changes: ChangeChannel = field(default_factory=DiskChannel)
    """How a file change is shown and made (the write policy is the builder's)."""
    files: FileView = field(default_factory=DiskFiles)
    on_event: EventSink = ignore_events
    mcp: McpHub | None = None
    """The MCP servers of the session's workspace (started by the builder, not the front end)."""
    trust: WorkspaceTrust | None = None
    """The workspace's trust decision (its run, connection or session's): the builder asks it
    through `gate.prompter` when it is undecided, before the servers start. None: the
    workspace's own files are not trusted."""
    extra_tools: tuple[AnyTool, ...] = ()
    adapt_tools: Callable[[ToolRegistry], ToolRegistry] = _same_tools
    """The front end's own take on the built-in tools (e.g. edits that report the editor's
    diagnostics, and a `diagnostics` tool)."""
    code_intel: CodeIntel | None = None
    """The front end's own answerer of the `lsp` tool (the editor's language servers): asked
    first, ink-ls's own servers answering what it does not cover."""
    settings_sections: Mapping[str, Any] | None = None
    """The front end's own settings-file sections (the editor's `ink.permissions` and
    `ink.hooks`), merged with the settings files."""
    checkpoint_settings: CheckpointSettings | None = None
    """The front end's checkpoint settings (the editor's `ink.checkpoints`); None: from the
    environment."""
    mode_stated: bool = True
    """False when the user named no approval mode (no `--approval`): the settings files'
    `defaultMode` then sets the gate's mode."""
    mentions: MentionSources = field(default_factory=MentionSources)
    """What `@selection` and `@problems` attach (the editor's; elsewhere left as typed)."""
    context: str = ""
    """Appended to the user's message after the @-mentions (the editor's document)."""
    rewind: Rewinder | None = None
    """The `/rewind` built-in on the front end's stored session (None: not offered)."""


@dataclass
class PreparedTurn:
    """A ready agent, and what the front end may show about how it was built."""

    agent: Agent
    window: int
    """The model's context window in tokens (compaction follows it)."""
    window_info: ContextWindow
    """That window and where the figure came from (`Ollama runtime`, `configured`, …)."""
    instructions: ProjectInstructions
    notices: list[str] = field(default_factory=list)
    """Lines for the user about the settings files: problems (file and JSON path), what an
    untrusted project asked for and did not get, the command sandbox in force."""
    checkpoint: TurnCheckpoint | None = None
    """The turn's checkpoint entry, when the session is stored."""
    composer: Composer = field(default_factory=lambda: Composer(Path.cwd()))
    """Makes the user message of what was typed (prompt files, @-mentions, context)."""
    rewind: Rewinder | None = None
    """The front end's `/rewind` (`user_turn.run_turn` runs the built-ins)."""


class TurnBuilder:
    """Builds every turn of a process; one per process, around its `AgentFactory`."""

    def __init__(self, factory: AgentFactory) -> None:
        self.factory = factory
        self._hooks: dict[str, Hooks] = {}
        """Per session id: SessionStart runs once per session, not once per turn."""

    @asynccontextmanager
    async def turn(
        self,
        front: FrontEnd,
        conversation: Conversation,
        *,
        settings: ModelSettings,
        cwd: Path,
        signal: CancelSignal = NEVER,
        max_turns: int | None = None,
        current: Callable[[], ModelSettings] | None = None,
        session_id: str = "",
        transcript_path: str | None = None,
        prompt: str | None = None,
        checkpoints: Journal | None = None,
    ) -> AsyncIterator[PreparedTurn]:
        """A turn of `conversation` in `cwd`; the model client is held until the block ends.

        `current` gives the settings new turns will use (the editor's may change while this
        turn runs): clients of other settings close once no turn holds them. With `prompt`
        and `checkpoints` (the stored session) the turn is a numbered checkpoint entry: the
        workspace is recorded before its first change and when the block ends."""
        factory = self.factory
        checkpoint = (  # a built-in (`/rewind`, `/clear`) is no entry of its own
            begin_turn(checkpoints, cwd, prompt, settings=front.checkpoint_settings, prefetch=False)
            if prompt is not None and builtin_call(prompt) is None
            else None
        )
        gate: Gate = front.gate if checkpoint is None else CheckpointGate(front.gate, checkpoint)
        model = factory.acquire_model(settings)
        try:
            window_info = await factory.window_info(settings)
            window = window_info.tokens
            if conversation.instructions is None:
                conversation.instructions = ProjectInstructions(cwd)
            sources = await self._start_servers(front, signal)
            loaded = self._settings(front, cwd)
            notices = self._rules(front, loaded, cwd)
            hooks, sandbox, more = self._hooks_and_sandbox(
                front, loaded, cwd, settings, session_id, transcript_path
            )
            notices += more
            agent = factory.build(
                AgentParts(
                    settings=settings,
                    cwd=cwd,
                    gate=gate,
                    writer=PolicyWriter(front.gate, front.changes, cwd),
                    files=front.files,
                    on_event=front.on_event,
                    on_message=conversation.record,
                    on_compaction=conversation.record_compaction,
                    adapt_tools=front.adapt_tools,
                    hooks=hooks,
                    sandbox=sandbox,
                    hidden=front.gate.permissions.hidden() if front.gate.permissions else None,
                ),
                history=conversation.messages,
                extra_tools=(
                    *front.extra_tools,
                    *factory.lsp_tools(cwd, loaded.lsp, settings, front.code_intel),
                ),
                tool_sources=sources,
                model=model,
                max_turns=max_turns,
                context_window=window,
                instructions=conversation.instructions,
                wire=conversation.wire,
            )
            if checkpoint is not None:
                # the snapshot's git work would compete with sending the request: it starts
                # once the request is out (a first change starts it itself if it comes first)
                agent.on_request_sent = checkpoint.prefetch
            if front.gate.mode == "plan":
                enter_plan(agent)
            composer = Composer(cwd, front.files, front.mentions, front.context)
            yield PreparedTurn(
                agent,
                window,
                window_info,
                conversation.instructions,
                notices,
                checkpoint,
                composer,
                front.rewind,
            )
        finally:
            if checkpoint is not None:
                await checkpoint.finish()
            keep = current() if current is not None else settings
            await factory.release_model(settings, current=keep)

    @staticmethod
    def _settings(front: FrontEnd, cwd: Path) -> Settings:
        """The settings files (and the front end's own sections), read once per turn after
        the workspace trust is decided: the project's files widen only as far as the trust
        covers them, file by file as read."""
        covers = trust_covers(front.trust) if front.trust is not None else False
        return load_settings(cwd, trusted=covers, editor=front.settings_sections)

    def _hooks_and_sandbox(
        self,
        front: FrontEnd,
        loaded: Settings,
        cwd: Path,
        settings: ModelSettings,
        session_id: str,
        transcript_path: str | None,
    ) -> tuple[Hooks | None, SandboxSettings, list[str]]:
        """Hooks and sandbox of the settings files (an edit of them counts from the next
        turn); the session keeps one `Hooks`."""
        from ink_ls.hooks.engine import Hooks
        from ink_ls.hooks.files import sandbox_line, session_settings

        local = session_settings(loaded)
        line = sandbox_line(local.sandbox)  # problems and ignored lines: `_rules` says them
        notices = [line] if line else []
        hooks = self._hooks.get(session_id)
        if not local.hooks:
            return None, local.sandbox, notices
        if hooks is None or hooks.cwd != cwd:
            hooks = Hooks(
                [],
                cwd=cwd,
                session_id=session_id,
                secret_env=settings.secret_env_names(),
                transcript_path=transcript_path,
            )
            if session_id:
                self._hooks[session_id] = hooks
        hooks.entries = list(local.hooks)
        hooks.permission_mode = front.gate.mode
        return hooks, local.sandbox, notices

    @staticmethod
    def _rules(front: FrontEnd, loaded: Settings, cwd: Path) -> list[str]:
        """The permission rules of the settings files on the front end's gate (and their
        `defaultMode` when the user named no mode). Returns the lines the user should read."""
        permissions = Permissions.from_settings(loaded, cwd)
        front.gate.permissions = permissions
        if not front.mode_stated and loaded.default_mode is not None:
            front.gate.mode = loaded.default_mode
        notices = [f"{p}; the rest of the settings apply" for p in permissions.problems]
        if loaded.ignored:
            notices.append(
                "the workspace is not trusted, so its settings files widen nothing: "
                + "; ".join(loaded.ignored)
            )
        return notices

    @staticmethod
    async def _start_servers(front: FrontEnd, signal: CancelSignal) -> list[ToolSource]:
        """The workspace trust, decided under the one rule (asked once through the front
        end's prompter when nothing else decides; `auto` does not imply it), then the front
        end's MCP servers: a workspace `.mcp.json`'s only when the trust covers it."""
        gate, trust = front.gate, front.trust
        if trust is not None:
            ask = (
                trust_asker(gate.prompter, timeout=gate.timeout, signal=signal)
                if gate.prompter is not None
                else None
            )
            await trust.resolve(ask, mode=gate.mode)
        hub = front.mcp
        if hub is None:
            return []
        await hub.start(trust=trust)
        return [hub]

"""The agent factory: the process-wide parts every agent shares.

It owns the environment variables commands never inherit, the built-in tool list, the system
prompt, one model client per settings (reused across turns, closed when replaced), the
context-window lookup and the process-wide concurrency budget (injected, never a module
global). Front ends reach it only through the turn builder (`agent.turn`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ink_ls.agent.budget import DEFAULT_LIMIT, ConcurrencyBudget
from ink_ls.agent.context import CompactionSink, ignore_compaction
from ink_ls.agent.events import EventSink, ignore_events
from ink_ls.agent.gate import Gate, allow_all
from ink_ls.agent.instructions import ProjectInstructions
from ink_ls.agent.prompt import build_system_prompt
from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import Message
from ink_ls.core.tool import (
    AnyTool,
    DiskFiles,
    DiskWriter,
    FileView,
    FileWriter,
    ToolRegistry,
    ToolSource,
)
from ink_ls.model.base import ContextWindow, Model

if TYPE_CHECKING:  # the loop loads with the first agent, not with the server
    from ink_ls.agent.loop import Agent
    from ink_ls.hooks.engine import Hooks
    from ink_ls.langserver.pool import LanguageServers
    from ink_ls.model.queue import EndpointQueues
    from ink_ls.model.wire import WireCache
    from ink_ls.tools.lsp_answers import CodeIntel
    from ink_ls.tools.sandbox import SandboxSettings

ModelFactory = Callable[[ModelSettings], Model]
ToolsFactory = Callable[[Path, tuple[str, ...]], list[AnyTool]]
"""(workspace root, environment variables commands must not inherit) → the built-in tools."""
PromptFactory = Callable[[Path, ToolRegistry], str]
WindowLookup = Callable[[ModelSettings], Awaitable[ContextWindow]]
"""The model's context window for settings (the setting, the endpoint's figure, a default)."""


def _ignore_message(message: Message) -> None:
    return None


def _openai_client(settings: ModelSettings, queues: EndpointQueues | None = None) -> Model:
    from ink_ls.model.providers import make_client  # httpx loads only when a model is used

    return make_client(settings, queues=queues)  # the provider the settings name


def _builtin_tools(cwd: Path, secret_env: tuple[str, ...]) -> list[AnyTool]:
    from ink_ls.tools.builtin import builtin_tools

    return builtin_tools(secret_env=secret_env)


async def _resolve_window(settings: ModelSettings) -> ContextWindow:
    from ink_ls.model.window import detect_window

    return await detect_window(settings)


def _same_tools(tools: ToolRegistry) -> ToolRegistry:
    return tools


@dataclass(frozen=True)
class AgentParts:
    """The pieces of one agent that are not the factory's own (the turn builder fills them in
    from a front end and a conversation: `agent.turn`)."""

    settings: ModelSettings
    cwd: Path
    gate: Gate = allow_all
    writer: FileWriter = field(default_factory=DiskWriter)
    files: FileView = field(default_factory=DiskFiles)
    on_event: EventSink = ignore_events
    on_message: Callable[[Message], None] = _ignore_message
    on_compaction: CompactionSink = ignore_compaction
    """Where a compaction goes (the session file records it)."""
    adapt_tools: Callable[[ToolRegistry], ToolRegistry] = _same_tools
    """The front end's own take on the tools (e.g. edits that report the editor's
    diagnostics, and a `diagnostics` tool)."""
    hooks: Hooks | None = None
    """The session's hooks of the settings files, if any."""
    sandbox: SandboxSettings | None = None
    """The command sandbox of the settings files (`bash` runs in it when enabled)."""
    hidden: Callable[[Path], bool] | None = None
    """Paths the `Read` deny rules hide from listings and searches (grep, find, ls)."""


class AgentFactory:
    """Builds agents with one policy; one instance per process (the server, a terminal run)."""

    def __init__(
        self,
        *,
        make_model: ModelFactory | None = None,
        make_tools: ToolsFactory = _builtin_tools,
        system_prompt: PromptFactory = build_system_prompt,
        budget: ConcurrencyBudget | None = None,
        max_turns: int = 100,
        grace_seconds: float = 10.0,
        resolve_window: WindowLookup = _resolve_window,
    ) -> None:
        self._make_model = make_model if make_model is not None else self._shared_queues_client
        self._queues: EndpointQueues | None = None
        self._resolve_window = resolve_window
        self._windows: dict[ModelSettings, ContextWindow] = {}
        self._make_tools = make_tools
        self._system_prompt = system_prompt
        self.budget = budget if budget is not None else ConcurrencyBudget(DEFAULT_LIMIT)
        self.max_turns = max_turns
        self.grace_seconds = grace_seconds
        self._models: dict[ModelSettings, Model] = {}
        self._in_use: dict[ModelSettings, int] = {}
        self._language_servers: LanguageServers | None = None

    def _shared_queues_client(self, settings: ModelSettings) -> Model:
        """The provider's client; an endpoint's request limit is shared by all its clients."""
        if self._queues is None:
            from ink_ls.model.queue import EndpointQueues

            self._queues = EndpointQueues()
        return _openai_client(settings, self._queues)

    @staticmethod
    def secret_env(settings: ModelSettings) -> tuple[str, ...]:
        """Names of environment variables that commands must never inherit (API keys)."""
        return settings.secret_env_names()

    def tools(
        self,
        cwd: Path,
        settings: ModelSettings,
        extra: Iterable[AnyTool] = (),
        sources: Iterable[ToolSource] = (),
    ) -> ToolRegistry:
        """The built-in tools rooted at `cwd`, then `extra` ones; duplicate names are refused.
        `sources` (MCP servers) add tools that may change while a run goes on."""
        return ToolRegistry([*self._make_tools(cwd, self.secret_env(settings)), *extra], sources)

    def lsp_tools(
        self,
        cwd: Path,
        section: Mapping[str, Any],
        settings: ModelSettings,
        editor: CodeIntel | None = None,
    ) -> list[AnyTool]:
        """The `lsp` tool for `cwd` when something answers it: the front end's `editor`
        answerer first (its own language servers), then a language server ink-ls starts (the
        settings files' `lsp` section, else a known server found); none without either.
        Servers start on first use and are shared by every turn of the process."""
        from ink_ls.langserver.pool import LanguageServers  # pygls loads only here

        if self._language_servers is None:
            self._language_servers = LanguageServers()
        servers = self._language_servers.for_workspace(cwd, section, self.secret_env(settings))
        chain = [intel for intel in (editor, servers) if intel is not None]
        if not chain:
            return []
        # the tool's modules (and its parameter model) load only where it is offered
        from ink_ls.tools.lsp import LspTool
        from ink_ls.tools.lsp_answers import Answerers

        return [LspTool(chain[0] if len(chain) == 1 else Answerers(*chain))]

    async def close_language_servers(self) -> None:
        """Stop the language servers the `lsp` tool started (at the end of the process)."""
        if self._language_servers is not None:
            await self._language_servers.close()

    async def window(self, settings: ModelSettings) -> int:
        """The context window for `settings` in tokens, looked up once per settings."""
        return (await self.window_info(settings)).tokens

    def _window_source(self, settings: ModelSettings, tokens: int | None) -> str | None:
        known = self._windows.get(settings)
        return known.source if known is not None and known.tokens == tokens else None

    async def window_info(self, settings: ModelSettings) -> ContextWindow:
        """The context window for `settings` and where it came from (looked up once)."""
        window = self._windows.get(settings)
        if window is None:
            window = self._windows[settings] = await self._resolve_window(settings)
        return window

    def system_prompt(self, cwd: Path, tools: ToolRegistry) -> str:
        return self._system_prompt(cwd, tools)

    def model(self, settings: ModelSettings) -> Model:
        """The model client for `settings`, made once and reused (a new client costs a TLS
        handshake); see `release_models` for closing the clients of replaced settings."""
        model = self._models.get(settings)
        if model is None:
            model = self._models[settings] = self._make_model(settings)
        return model

    def acquire_model(self, settings: ModelSettings) -> Model:
        """`model(settings)`, counted as in use until `release_model`."""
        self._in_use[settings] = self._in_use.get(settings, 0) + 1
        return self.model(settings)

    async def release_model(self, settings: ModelSettings, *, current: ModelSettings) -> None:
        """One use of `settings` ended; close every client that is neither in use nor current."""
        left = self._in_use.get(settings, 0) - 1
        if left > 0:
            self._in_use[settings] = left
        else:
            self._in_use.pop(settings, None)
        await self.close_models(keep=current)

    async def close_models(self, *, keep: ModelSettings | None = None) -> None:
        """Close model clients not in use, except `keep`'s (all of them with `keep=None`)."""
        for settings in [s for s in self._models if s != keep and s not in self._in_use]:
            close = getattr(self._models.pop(settings), "aclose", None)
            if close is not None:
                await close()

    def build(
        self,
        parts: AgentParts,
        *,
        history: list[Message] | None = None,
        extra_tools: Iterable[AnyTool] = (),
        tool_sources: Iterable[ToolSource] = (),
        model: Model | None = None,
        max_turns: int | None = None,
        context_window: int | None = None,
        instructions: ProjectInstructions | None = None,
        wire: WireCache | None = None,
    ) -> Agent:
        """An agent for one conversation rooted at `parts.cwd` (history is shared, not copied).

        Front ends do not call this: they ask `agent.turn.TurnBuilder`, which applies the
        window, instructions, MCP servers and write policy the same way for all of them.
        `tool_sources` (MCP servers) add tools that may change during a run; `context_window`
        turns on automatic compaction."""
        from ink_ls.agent.loop import Agent, AgentOptions

        settings, cwd = parts.settings, parts.cwd
        # the front end adapts our own tools; a source's tools join as the source gives them
        own = parts.adapt_tools(self.tools(cwd, settings, extra_tools))
        if parts.sandbox is not None and parts.sandbox.enabled:
            from ink_ls.tools.bash import BashTool

            for tool in own:
                if isinstance(tool, BashTool):
                    tool.use_sandbox(parts.sandbox)
        if parts.hidden is not None:
            from ink_ls.tools.hiding import HidesPaths

            for tool in own:
                if isinstance(tool, HidesPaths):
                    tool.hide_paths(parts.hidden)
        tools = ToolRegistry(list(own), tool_sources) if tool_sources else own
        options = AgentOptions(
            cwd=cwd,
            system_prompt=self.system_prompt(cwd, tools),
            max_turns=max_turns if max_turns is not None else self.max_turns,
            grace_seconds=self.grace_seconds,
            context_window=context_window,
            window_source=self._window_source(settings, context_window),
            compact_threshold=settings.compact_threshold,
        )
        return Agent(
            model if model is not None else self.model(settings),
            tools,
            options,
            history=history,
            gate=parts.gate,
            files=parts.files,
            writer=parts.writer,
            on_event=parts.on_event,
            on_message=parts.on_message,
            budget=self.budget,
            on_compaction=parts.on_compaction,
            instructions=instructions,
            hooks=parts.hooks,
            wire=wire,
        )

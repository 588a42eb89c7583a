"""One turn, built in one place for every front end (the editor host, the terminal, ACP).

A front end translates its protocol into a `FrontEnd` (its approval gate, the channel its file
changes go through, its file view, its event sink, its MCP servers) and a `Conversation` (the
session's history and what records it), and asks `TurnBuilder.turn` for a ready agent. The
builder applies what must not differ between front ends: the model client and its window,
project instructions, MCP servers started under the one approval rule, compaction recorded
in the session, and the one write policy (`agent.writes`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from ink_ls.agent.approval import ApprovalGate, yes_no
from ink_ls.agent.compaction import Compaction
from ink_ls.agent.events import EventSink, ignore_events
from ink_ls.agent.factory import AgentFactory, AgentParts
from ink_ls.agent.instructions import ProjectInstructions
from ink_ls.agent.writes import ChangeChannel, DiskChannel, PolicyWriter
from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import Message
from ink_ls.core.signal import NEVER, CancelSignal
from ink_ls.core.tool import AnyTool, DiskFiles, FileView, ToolRegistry, ToolSource
from ink_ls.mcp.hub import McpHub

if TYPE_CHECKING:  # the loop loads with the first agent, not with the server
    from ink_ls.agent.loop import Agent

FrontEndKind = Literal["editor", "terminal", "acp"]


class Conversation(Protocol):
    """A session as a turn sees it: the history (the agent appends to it), the project
    instructions loaded so far, and where new messages and compactions are recorded."""

    messages: list[Message]
    instructions: ProjectInstructions | None

    def record(self, message: Message) -> None: ...

    def record_compaction(self, compaction: Compaction) -> None: ...


@dataclass
class MemoryConversation:
    """A conversation kept only in memory (tests, benchmarks, sub-agent-like uses)."""

    messages: list[Message] = field(default_factory=list)
    instructions: ProjectInstructions | None = None

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
    extra_tools: tuple[AnyTool, ...] = ()
    adapt_tools: Callable[[ToolRegistry], ToolRegistry] = _same_tools
    """The front end's own take on the built-in tools (e.g. edits that report the editor's
    diagnostics, and a `diagnostics` tool)."""


@dataclass
class PreparedTurn:
    """A ready agent, and what the front end may show about how it was built."""

    agent: Agent
    window: int
    """The model's context window in tokens (compaction follows it)."""
    instructions: ProjectInstructions


class TurnBuilder:
    """Builds every turn of a process; one per process, around its `AgentFactory`."""

    def __init__(self, factory: AgentFactory) -> None:
        self.factory = factory

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
    ) -> AsyncIterator[PreparedTurn]:
        """A turn of `conversation` in `cwd`; the model client is held until the block ends.

        `current` gives the settings new turns will use (the editor's may change while this
        turn runs): clients of other settings close once no turn holds them."""
        factory = self.factory
        model = factory.acquire_model(settings)
        try:
            window = await factory.window(settings)
            if conversation.instructions is None:
                conversation.instructions = ProjectInstructions(cwd)
            sources = await self._start_servers(front, signal)
            agent = factory.build(
                AgentParts(
                    settings=settings,
                    cwd=cwd,
                    gate=front.gate,
                    writer=PolicyWriter(front.gate, front.changes),
                    files=front.files,
                    on_event=front.on_event,
                    on_message=conversation.record,
                    on_compaction=conversation.record_compaction,
                    adapt_tools=front.adapt_tools,
                ),
                history=conversation.messages,
                extra_tools=front.extra_tools,
                tool_sources=sources,
                model=model,
                max_turns=max_turns,
                context_window=window,
                instructions=conversation.instructions,
            )
            yield PreparedTurn(agent, window, conversation.instructions)
        finally:
            keep = current() if current is not None else settings
            await factory.release_model(settings, current=keep)

    @staticmethod
    async def _start_servers(front: FrontEnd, signal: CancelSignal) -> list[ToolSource]:
        """The front end's MCP servers, started under the one rule: a workspace's own servers
        need the user's yes, asked through the front end's prompter (`McpHub.start`)."""
        hub = front.mcp
        if hub is None:
            return []
        gate = front.gate
        confirm = (
            yes_no(gate.prompter, timeout=gate.timeout, signal=signal)
            if gate.prompter is not None
            else None
        )
        await hub.start(mode=gate.mode, confirm=confirm)
        return [hub]

"""The MCP servers of one editor connection: one hub per workspace, started with the first
session turn (or the first `ink/tools` / `ink/mcp/status`), stopped at shutdown.

Turns may ask the user to trust the workspace (its `.mcp.json`'s servers start only then);
`ink/tools` and `ink/mcp/status` never ask (those servers then show as waiting for it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ink_ls.agent.trust import workspace_trust
from ink_ls.core.trust import WorkspaceTrust
from ink_ls.editor.settings import InkSettings
from ink_ls.mcp.hub import McpHub
from ink_ls.protocol.models import McpServerInfo, McpStatusResult


class EditorMcp:
    """Owns the connection's `McpHub`, built from the settings it first starts with."""

    def __init__(self, cwd: Path, secret_env: Callable[[], tuple[str, ...]]) -> None:
        self.cwd = cwd
        self._secret_env = secret_env
        self.hub: McpHub | None = None
        self.closed = False
        self.trust = workspace_trust(cwd, explicit=None, interactive=True)
        """The connection's trust decision (the editor can always ask: a message request)."""

    def _hub(self, settings: InkSettings) -> McpHub:
        if self.hub is None:  # made from the first settings that ask for it
            self.hub = McpHub.for_workspace(
                self.cwd, settings.mcp_servers, secret_env=self._secret_env()
            )
        return self.hub

    def hub_for(self, settings: InkSettings) -> McpHub | None:
        """The connection's hub for a turn, which the turn builder starts; None after
        shutdown, so nothing starts again (no orphans at exit)."""
        return None if self.closed else self._hub(settings)

    def trust_for(self, settings: InkSettings) -> WorkspaceTrust:
        """The connection's trust decision, with what the settings state (`trustWorkspace`)."""
        self.trust.explicit = settings.trust_workspace
        return self.trust

    async def start(self, settings: InkSettings) -> McpHub:
        """The hub with every server started that may start without asking (`ink/tools`,
        `ink/mcp/status`: a workspace's servers wait for a turn to ask for its trust)."""
        hub = self._hub(settings)
        trust = self.trust_for(settings)
        trust.check()
        if not self.closed:
            await hub.start(trust=trust)
        return hub

    async def status(self, settings: InkSettings) -> McpStatusResult:
        hub = await self.start(settings)
        return McpStatusResult(
            servers=[
                McpServerInfo(
                    name=s.name,
                    origin=s.origin,
                    transport=s.transport,
                    target=s.target,
                    state=s.state,
                    error=s.error,
                    tools=s.tools,
                    skipped=s.skipped,
                    trusted=s.trusted,
                    start_ms=round(s.start_ms, 1) if s.start_ms is not None else None,
                )
                for s in hub.status()
            ],
            problems=hub.problems,
        )

    async def close(self) -> None:
        self.closed = True
        if self.hub is not None:
            await self.hub.close()

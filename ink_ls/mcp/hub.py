"""The MCP servers of one workspace: started together, their tools as one changing tool source.

A workspace `.mcp.json` names programs from the repository, so its servers start only when
the workspace is trusted (`core.trust`) with that very file; otherwise they stay stopped and
their status says why. Tools are rebuilt whenever a server connects,
fails or announces a new list; `version` tells registries to read them again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ink_ls.core.tool import AnyTool
from ink_ls.core.trust import WorkspaceTrust
from ink_ls.mcp.config import DEFAULT_START_TIMEOUT, WORKSPACE_FILE, ServerConfig, load_configs

if TYPE_CHECKING:  # the SDK (about 0.5 s to import) loads only when a server is configured
    from ink_ls.mcp.connection import ServerConnection
    from ink_ls.mcp.tool import McpTool

log = logging.getLogger(__name__)


@dataclass
class ServerStatus:
    """What `ink-ls mcp list`, `ink/mcp/status` and `:checkhealth ink` show for one server."""

    name: str
    origin: str
    transport: str
    target: str
    state: str
    """`connected`, `failed`, `starting`, `stopped`, or `not started`."""
    error: str | None = None
    tools: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Tools left out, with the reason (invalid schema, name taken)."""
    trusted: bool = False
    start_ms: float | None = None


class McpHub:
    """The servers of one workspace and the tools they offer (a `ToolSource`)."""

    def __init__(
        self,
        configs: Iterable[ServerConfig],
        problems: Iterable[str] = (),
        *,
        secret_env: Iterable[str] = (),
        start_timeout: float = DEFAULT_START_TIMEOUT,
    ) -> None:
        self.problems = list(problems)
        secret = tuple(secret_env)
        configs = list(configs)
        if configs:
            from ink_ls.mcp.connection import ServerConnection
        self.servers: dict[str, ServerConnection] = {
            c.name: ServerConnection(
                c, secret_env=secret, start_timeout=start_timeout, on_change=self._changed
            )
            for c in configs
        }
        self._held: dict[str, str] = {}
        """Servers not started on purpose → why (workspace servers of an untrusted workspace)."""
        self._version = 0
        self._tools: list[McpTool] = []
        self._skipped: dict[str, list[str]] = {}
        self._start_lock = asyncio.Lock()
        self.last_start_ms: float | None = None

    @classmethod
    def for_workspace(
        cls,
        workspace: Path,
        editor_servers: object = None,
        *,
        secret_env: Iterable[str] = (),
        start_timeout: float = DEFAULT_START_TIMEOUT,
    ) -> McpHub:
        """The hub of `workspace`: user file, `.mcp.json`, then the editor's `mcpServers`."""
        configs, problems = load_configs(workspace, editor_servers, secret=tuple(secret_env))
        return cls(configs, problems, secret_env=secret_env, start_timeout=start_timeout)

    # ---- ToolSource ----------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self._version

    def current_tools(self) -> list[AnyTool]:
        return list(self._tools)

    def tools_of_all(self) -> list[McpTool]:
        return list(self._tools)

    def tools_of(self, server: str) -> list[McpTool]:
        return [t for t in self._tools if t.server_name == server]

    def _collect(self) -> tuple[list[McpTool], dict[str, list[str]]]:
        """The servers' tools under their names, and the tools left out with the reason."""
        from ink_ls.mcp.tool import McpTool, check_schema, tool_name

        tools: list[McpTool] = []
        skipped: dict[str, list[str]] = {}
        taken: set[str] = set()
        for name, conn in self.servers.items():
            # a crashed server's tools stay: calling one starts it again
            for remote in conn.tools if conn.state in ("connected", "failed") else []:
                why = check_schema(dict(remote.input_schema))
                full = tool_name(name, remote.name)
                if why is None and full in taken:
                    why = f"its name becomes {full}, which another tool already has"
                if why is not None:
                    skipped.setdefault(name, []).append(f"{remote.name}: {why}")
                    continue
                taken.add(full)
                tools.append(McpTool(full, conn, remote))
        return tools, skipped

    def _changed(self) -> None:
        tools, skipped = self._collect() if self.servers else ([], {})
        for name, reasons in skipped.items():
            if reasons != self._skipped.get(name):
                log.info("MCP server %s: tools left out: %s", name, "; ".join(reasons))
        self._tools, self._skipped = tools, skipped
        self._version += 1

    # ---- life -----------------------------------------------------------------------------------

    async def start(self, *, trust: WorkspaceTrust | None = None) -> None:
        """Start every server not running yet, in parallel (each bounded by its timeout).

        A workspace `.mcp.json`'s servers start only when `trust` covers that file as it
        was read (the caller decides trust first, asking if it may); else they are held.
        """
        async with self._start_lock:
            began = time.perf_counter()
            todo = []
            for name, conn in self.servers.items():
                if conn.state in ("connected", "starting"):
                    continue
                if conn.config.origin == "workspace" and not self._trusted(conn.config, trust):
                    continue
                if conn.state == "failed" and not conn.may_retry():
                    continue  # failed moments ago: do not make every turn wait for it
                self._held.pop(name, None)
                todo.append(conn.start())
            if todo:
                await asyncio.gather(*todo)
                self.last_start_ms = (time.perf_counter() - began) * 1000.0
            self._changed()

    def _trusted(self, config: ServerConfig, trust: WorkspaceTrust | None) -> bool:
        if trust is not None and trust.covers(WORKSPACE_FILE, config.digest):
            return True
        if trust is not None and trust.state == "trusted":
            why = f"{WORKSPACE_FILE} changed after the workspace was trusted"
        else:
            why = (
                trust.reason if trust is not None else "waiting for the user to trust the workspace"
            )
        self._held[config.name] = why
        return False

    async def close(self) -> None:
        """Stop every server (their processes end)."""
        await asyncio.gather(*(c.stop() for c in self.servers.values()), return_exceptions=True)
        self._changed()

    # ---- status ---------------------------------------------------------------------------------

    def status(self) -> list[ServerStatus]:
        out = []
        for name, conn in self.servers.items():
            config = conn.config
            state: str = conn.state
            error = conn.error
            if name in self._held and conn.state == "stopped":
                state, error = "not started", self._held[name]
            out.append(
                ServerStatus(
                    name=name,
                    origin=config.origin,
                    transport=config.transport,
                    target=config.shown,
                    state=state,
                    error=error,
                    tools=[t.name for t in self.tools_of(name)],
                    skipped=list(self._skipped.get(name, [])),
                    trusted=config.trusted,
                    start_ms=conn.started_ms,
                )
            )
        return out

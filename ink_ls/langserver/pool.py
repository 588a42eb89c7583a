"""The process's language servers: one `WorkspaceServers` per workspace, closed with the process.

Asked by the turn builder for the `lsp` tool's answerer; `close` stops every server, and an
exit hook kills any still running if the loop ended without closing them.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ink_ls.langserver.servers import ServerCommand, available

if TYPE_CHECKING:
    from ink_ls.langserver.workspace import WorkspaceServers


class LanguageServers:
    """Every workspace's servers in this process (shared by all its sessions)."""

    def __init__(self) -> None:
        self._workspaces: dict[tuple[Path, tuple[ServerCommand, ...]], WorkspaceServers] = {}
        atexit.register(self._kill_left)

    def for_workspace(
        self, root: Path, section: Mapping[str, Any], hidden: tuple[str, ...] = ()
    ) -> WorkspaceServers | None:
        """The servers for `root` under the settings' `lsp` section, or None when no language
        of the workspace has a server (then no `lsp` tool is offered)."""
        commands = available(root, section)
        if not commands:
            return None
        key = (root, tuple(commands[name] for name in sorted(commands)))
        servers = self._workspaces.get(key)
        if servers is None:
            # pygls and lsprotocol load only for a workspace that has a server: a third of a
            # second of start-up that `ink-ls run` in any other directory does not pay
            from ink_ls.langserver.workspace import WorkspaceServers

            servers = self._workspaces[key] = WorkspaceServers(root, commands, hidden)
        return servers

    def pids(self) -> list[int]:
        """Process ids of every running server."""
        return [pid for servers in self._workspaces.values() for pid in servers.pids()]

    async def close(self) -> None:
        """Stop every server (shutdown, exit, kill when it lingers)."""
        workspaces = list(self._workspaces.values())
        self._workspaces.clear()
        for servers in workspaces:
            await servers.close()

    def _kill_left(self) -> None:
        """At interpreter exit: no server outlives ink-ls, even when `close` never ran."""
        for pid in self.pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

"""ACP's `mcpServers` (`session/new`, `session/load`) as our MCP configuration.

Stdio servers carry `env` as `[{name, value}]`, HTTP servers `headers` likewise; they join the
user's file and the workspace's `.mcp.json` (the client's win per name). SSE servers are not
supported by our MCP layer and are left out with a warning.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


def _pairs(items: Any) -> dict[str, str]:
    return {str(getattr(i, "name", "")): str(getattr(i, "value", "")) for i in items or []}


def acp_servers(servers: list[Any] | None) -> dict[str, Any]:
    """`{name: entry}` in the `.mcp.json` shape for the client's servers."""
    out: dict[str, Any] = {}
    for server in servers or []:
        name = str(getattr(server, "name", "") or "server")
        if getattr(server, "command", None) is not None:
            out[name] = {
                "command": server.command,
                "args": list(server.args or []),
                "env": _pairs(server.env),
            }
        elif getattr(server, "type", None) == "http":
            out[name] = {"url": server.url, "headers": _pairs(server.headers)}
        else:
            log.warning("MCP server %s: only stdio and http servers are supported", name)
    return out

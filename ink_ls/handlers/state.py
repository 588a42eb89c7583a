"""Per-connection state shared by the handlers: the open documents, settings, the host.

The host (the agent, its models, pydantic) is built after `initialize` has been answered, on
`initialized` or the first request that needs it: `initialize` itself imports none of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ink_ls.editor.documents import OpenDocuments
from ink_ls.protocol.errors import InkErrorCode, InkRequestError

if TYPE_CHECKING:
    from ink_ls.editor.host import Host, HostDeps


def default_deps() -> HostDeps:
    """The real model client, built-in tools, system prompt and session store."""
    from ink_ls.agent.factory import AgentFactory
    from ink_ls.editor.host import HostDeps
    from ink_ls.sessions.store import SessionStore

    return HostDeps(factory=AgentFactory(), store=SessionStore())


@dataclass
class ServerState:
    deps: HostDeps | None = None
    """None: the real ones (`default_deps`), built with the host."""
    documents: OpenDocuments = field(default_factory=OpenDocuments)
    host: Host | None = None
    pending: Callable[[HostDeps], Host] | None = None
    """What `initialize` left to build the host with, until `start_host` runs it."""

    def start_host(self) -> Host | None:
        """Build the host `initialize` prepared (once); the host, or None before `initialize`."""
        if self.host is None and self.pending is not None:
            build, self.pending = self.pending, None
            self.host = build(self.deps or default_deps())
        return self.host

    def require_host(self) -> Host:
        """The host, or a refusal when `initialize` has not run yet."""
        host = self.start_host()
        if host is None:
            raise InkRequestError(InkErrorCode.SHUTTING_DOWN, "server not initialized")
        return host

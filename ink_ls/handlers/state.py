"""Per-connection state shared by the handlers: the open documents, settings, the host."""

from __future__ import annotations

from dataclasses import dataclass, field

from ink_ls.editor.documents import OpenDocuments
from ink_ls.editor.host import Host, HostDeps
from ink_ls.protocol.errors import InkErrorCode, InkRequestError


@dataclass
class ServerState:
    deps: HostDeps
    documents: OpenDocuments = field(default_factory=OpenDocuments)
    host: Host | None = None

    def require_host(self) -> Host:
        """The host, or a refusal when `initialize` has not run yet."""
        if self.host is None:
            raise InkRequestError(InkErrorCode.SHUTTING_DOWN, "server not initialized")
        return self.host

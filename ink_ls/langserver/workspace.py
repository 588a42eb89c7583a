"""The language servers of one workspace as the `lsp` tool's `CodeIntel`: LSP answers → records.

One `Connection` per language, started on the first question about one of its files and shared
by every session of the workspace; an operation the server does not offer is said so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from ink_ls.langserver import answers as convert
from ink_ls.langserver.connection import Connection
from ink_ls.langserver.servers import ServerCommand, language_id, language_of, names
from ink_ls.tools.lsp_answers import (
    OPERATIONS,
    Call,
    Diagnostic,
    Location,
    LspUnavailableError,
    Position,
    Symbol,
    TextEdit,
)
from ink_ls.tools.processes import watched_env

_SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}
_DIAGNOSTICS_WAIT = 3.0


class WorkspaceServers:
    """The servers ink-ls starts for one workspace (a `CodeIntel`)."""

    def __init__(
        self, root: Path, commands: Mapping[str, ServerCommand], hidden: tuple[str, ...] = ()
    ) -> None:
        self.root = root
        self.hidden = hidden
        """Environment variables the servers must not inherit (API keys)."""
        self.commands = dict(commands)
        self._connections: dict[str, Connection] = {}
        self._starting: dict[str, asyncio.Lock] = {}

    def languages(self) -> list[str]:
        return names(self.commands.values())

    def operations(self) -> list[str]:
        return list(OPERATIONS)

    def pids(self) -> list[int]:
        """The process ids of the servers running now."""
        return [c.pid for c in self._connections.values() if c.pid is not None]

    def check(self, path: Path) -> None:
        language = language_of(path)
        if language is None or language.name not in self.commands:
            raise LspUnavailableError(f"no language server for {path.suffix or path.name} files")

    async def _connection(self, path: Path) -> Connection:
        self.check(path)
        language = language_of(path)
        assert language is not None  # check found it
        command = self.commands[language.name]
        lock = self._starting.setdefault(language.name, asyncio.Lock())
        async with lock:
            known = self._connections.get(language.name)
            if known is not None and not known.exited():
                return known
            if known is not None:  # it died: say so once, start afresh next time
                del self._connections[language.name]
                await known.close()
                raise known.failure("has exited; it will be started again on the next call")
            env = watched_env(f"lsp-{language.name}", self.hidden)
            connection = Connection(command, self.root, env)
            try:
                await connection.start()
            except LspUnavailableError:
                await connection.close()
                raise
            self._connections[language.name] = connection
            return connection

    async def _ready(
        self, path: Path, text: str, capability: str, operation: str
    ) -> tuple[Connection, str]:
        """The started server for `path` with `text` sent, refusing what it does not offer."""
        connection = await self._connection(path)
        caps = connection.capabilities
        if caps is None or not getattr(caps, capability, None):
            raise LspUnavailableError(
                f"the {connection.command.language} language server `{connection.label}` does "
                f"not support {operation}; use grep and read instead."
            )
        language = language_of(path)
        assert language is not None  # _connection found one
        uri = await connection.sync(path, text, language_id(path, language))
        return connection, uri

    def _position(self, connection: Connection, text: str, at: Position) -> lsp.Position:
        return convert.position(text, at, _encoding(connection))

    async def locations(
        self, operation: str, path: Path, text: str, at: Position
    ) -> list[Location]:
        capability = f"{operation}_provider"
        connection, uri = await self._ready(path, text, capability, operation)
        doc = lsp.TextDocumentIdentifier(uri=uri)
        pos = self._position(connection, text, at)
        client = connection.client
        answer: Any
        if operation == "references":
            params = lsp.ReferenceParams(
                text_document=doc,
                position=pos,
                context=lsp.ReferenceContext(include_declaration=True),
            )
            answer = await connection.ask(client.text_document_references_async(params), operation)
        elif operation == "definition":
            request = client.text_document_definition_async(
                lsp.DefinitionParams(text_document=doc, position=pos)
            )
            answer = await connection.ask(request, operation)
        else:
            request = client.text_document_implementation_async(
                lsp.ImplementationParams(text_document=doc, position=pos)
            )
            answer = await connection.ask(request, operation)
        return [convert.location(item) for item in convert.as_list(answer)]

    async def hover(self, path: Path, text: str, at: Position) -> str:
        connection, uri = await self._ready(path, text, "hover_provider", "hover")
        params = lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=self._position(connection, text, at),
        )
        answer = await connection.ask(connection.client.text_document_hover_async(params), "hover")
        return convert.markdown(answer.contents) if answer is not None else ""

    async def document_symbols(self, path: Path, text: str) -> list[Symbol]:
        connection, uri = await self._ready(
            path, text, "document_symbol_provider", "document_symbols"
        )
        params = lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
        request = connection.client.text_document_document_symbol_async(params)
        answer = await connection.ask(request, "document_symbols")
        return [convert.symbol(item) for item in convert.as_list(answer)]

    async def workspace_symbols(self, path: Path, text: str, query: str) -> list[Symbol]:
        connection, _uri = await self._ready(
            path, text, "workspace_symbol_provider", "workspace_symbols"
        )
        request = connection.client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=query))
        answer = await connection.ask(request, "workspace_symbols")
        return [convert.symbol(item) for item in convert.as_list(answer)]

    async def calls(self, operation: str, path: Path, text: str, at: Position) -> list[Call]:
        connection, uri = await self._ready(path, text, "call_hierarchy_provider", operation)
        client = connection.client
        prepare = lsp.CallHierarchyPrepareParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=self._position(connection, text, at),
        )
        items = await connection.ask(
            client.text_document_prepare_call_hierarchy_async(prepare), operation
        )
        calls: list[Call] = []
        for item in items or []:
            if operation == "incoming_calls":
                incoming = await connection.ask(
                    client.call_hierarchy_incoming_calls_async(
                        lsp.CallHierarchyIncomingCallsParams(item=item)
                    ),
                    operation,
                )
                calls += convert.incoming_calls(incoming or [])
            else:
                outgoing = await connection.ask(
                    client.call_hierarchy_outgoing_calls_async(
                        lsp.CallHierarchyOutgoingCallsParams(item=item)
                    ),
                    operation,
                )
                calls += convert.outgoing_calls(item.uri, outgoing or [])
        return calls

    async def diagnostics(self, path: Path, text: str) -> list[Diagnostic]:
        connection = await self._connection(path)
        language = language_of(path)
        assert language is not None
        caps = connection.capabilities
        if caps is not None and caps.diagnostic_provider is not None:
            uri = await connection.sync(path, text, language_id(path, language))
            params = lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
            request = connection.client.text_document_diagnostic_async(params)
            report = await connection.ask(request, "diagnostics")
            items = getattr(report, "items", None) or []
        else:  # push only: wait a little for what the server publishes after the sync
            async with connection.published:
                uri = await connection.sync(path, text, language_id(path, language))
                if uri not in connection.diagnostics:
                    try:
                        await asyncio.wait_for(connection.published.wait(), _DIAGNOSTICS_WAIT)
                    except TimeoutError:
                        pass
            items = connection.diagnostics.get(uri, [])
        return [
            Diagnostic(
                d.range.start.line,
                _SEVERITY.get(int(d.severity or 1), "error"),
                d.message,
                d.source or "",
            )
            for d in items
        ]

    async def rename(
        self, path: Path, text: str, at: Position, new_name: str
    ) -> dict[Path, list[TextEdit]]:
        connection, uri = await self._ready(path, text, "rename_provider", "rename")
        params = lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=self._position(connection, text, at),
            new_name=new_name,
        )
        answer = await connection.ask(
            connection.client.text_document_rename_async(params), "rename"
        )
        if answer is None:
            return {}

        def text_of(target: Path) -> str:
            return text if target == path else target.read_text(encoding="utf-8")

        return convert.text_edits(convert.workspace_edits(answer), text_of, _encoding(connection))

    async def close(self) -> None:
        """Stop every server of the workspace (each within about two seconds)."""
        connections = list(self._connections.values())
        self._connections.clear()
        await asyncio.gather(*(c.close() for c in connections))


def _encoding(connection: Connection) -> convert.Encoding:
    return "utf-16" if connection.utf16 else "utf-32"

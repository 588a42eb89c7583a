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

from ink_ls.langserver.connection import Connection, lsp_path
from ink_ls.langserver.servers import ServerCommand, language_id, language_of, names
from ink_ls.tools.lsp_answers import (
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


def _units(line: str, column: int, utf16: bool) -> int:
    """A character column as the server counts it (UTF-16 code units unless UTF-32)."""
    return len(line[:column].encode("utf-16-le")) // 2 if utf16 else column


def _chars(line: str, units: int, utf16: bool) -> int:
    """A server column (UTF-16 units unless UTF-32) as a character column."""
    if not utf16:
        return units
    return len(line.encode("utf-16-le")[: units * 2].decode("utf-16-le", errors="ignore"))


def _kind(kind: lsp.SymbolKind) -> str:
    return kind.name.lower() if isinstance(kind, lsp.SymbolKind) else str(kind)


def _markdown(contents: Any) -> str:
    """Hover contents (markup, a marked string or a list of them) as one markdown text."""
    if isinstance(contents, lsp.MarkupContent):
        return contents.value
    if isinstance(contents, str):
        return contents
    if isinstance(contents, lsp.MarkedStringWithLanguage):
        return f"```{contents.language}\n{contents.value}\n```"
    if isinstance(contents, list):
        return "\n\n".join(_markdown(c) for c in contents)
    return ""


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
        lines = text.splitlines()
        row = lines[at.line] if at.line < len(lines) else ""
        return lsp.Position(line=at.line, character=_units(row, at.column, connection.utf16))

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
        return [_location(item) for item in _as_list(answer)]

    async def hover(self, path: Path, text: str, at: Position) -> str:
        connection, uri = await self._ready(path, text, "hover_provider", "hover")
        params = lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=self._position(connection, text, at),
        )
        answer = await connection.ask(connection.client.text_document_hover_async(params), "hover")
        return _markdown(answer.contents) if answer is not None else ""

    async def document_symbols(self, path: Path, text: str) -> list[Symbol]:
        connection, uri = await self._ready(
            path, text, "document_symbol_provider", "document_symbols"
        )
        params = lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
        request = connection.client.text_document_document_symbol_async(params)
        answer = await connection.ask(request, "document_symbols")
        return [_symbol(item) for item in _as_list(answer)]

    async def workspace_symbols(self, path: Path, text: str, query: str) -> list[Symbol]:
        connection, _uri = await self._ready(
            path, text, "workspace_symbol_provider", "workspace_symbols"
        )
        request = connection.client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=query))
        answer = await connection.ask(request, "workspace_symbols")
        return [_symbol(item) for item in _as_list(answer)]

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
                for call in incoming or []:
                    where = Path(lsp_path(call.from_.uri))
                    for r in call.from_ranges or [call.from_.selection_range]:
                        loc = Location(where, r.start.line)
                        calls.append(Call(call.from_.name, _kind(call.from_.kind), loc))
            else:
                outgoing = await connection.ask(
                    client.call_hierarchy_outgoing_calls_async(
                        lsp.CallHierarchyOutgoingCallsParams(item=item)
                    ),
                    operation,
                )
                for out in outgoing or []:
                    for r in out.from_ranges or [out.to.selection_range]:
                        loc = Location(Path(lsp_path(item.uri)), r.start.line)
                        calls.append(Call(out.to.name, _kind(out.to.kind), loc))
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
        raw: dict[str, list[lsp.TextEdit]] = {}
        for change in answer.document_changes or []:
            if isinstance(change, lsp.TextDocumentEdit):
                raw.setdefault(change.text_document.uri, []).extend(
                    e for e in change.edits if isinstance(e, lsp.TextEdit)
                )
            else:
                raise LspUnavailableError(
                    "the rename would create, move or delete files, which this tool does not do; "
                    "rename the files with bash instead."
                )
        for target_uri, edits in (answer.changes or {}).items():
            raw.setdefault(target_uri, []).extend(edits)
        converted: dict[Path, list[TextEdit]] = {}
        for target_uri, edits in raw.items():
            target = Path(lsp_path(target_uri))
            lines = (text if target == path else target.read_text(encoding="utf-8")).splitlines()
            converted[target] = [_edit(e, lines, connection.utf16) for e in edits]
        return converted

    async def close(self) -> None:
        """Stop every server of the workspace (each within about two seconds)."""
        connections = list(self._connections.values())
        self._connections.clear()
        await asyncio.gather(*(c.close() for c in connections))


def _as_list(answer: Any) -> list[Any]:
    if answer is None:
        return []
    return list(answer) if isinstance(answer, list | tuple) else [answer]


def _location(item: Any) -> Location:
    if isinstance(item, lsp.LocationLink):
        return Location(Path(lsp_path(item.target_uri)), item.target_selection_range.start.line)
    return Location(Path(lsp_path(item.uri)), item.range.start.line)


def _symbol(item: Any) -> Symbol:
    if isinstance(item, lsp.DocumentSymbol):
        return Symbol(
            item.name,
            _kind(item.kind),
            item.selection_range.start.line,
            detail=item.detail or "",
            children=[_symbol(c) for c in item.children or []],
        )
    location = item.location
    line = location.range.start.line if isinstance(location, lsp.Location) else 0
    return Symbol(item.name, _kind(item.kind), line, path=Path(lsp_path(location.uri)))


def _edit(edit: lsp.TextEdit, lines: list[str], utf16: bool) -> TextEdit:
    def point(p: lsp.Position) -> Position:
        row = lines[p.line] if p.line < len(lines) else ""
        return Position(p.line, _chars(row, p.character, utf16))

    return TextEdit(point(edit.range.start), point(edit.range.end), edit.new_text)

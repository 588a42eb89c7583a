"""The editor's own language servers as the `lsp` tool's answerer (`languageFeatures`).

`EditorIntel` asks the client (`ink/languageFeatures`) and turns its raw LSP answers into the
tool's records with the one conversion (`langserver.answers`); `available: false` becomes a
`NotCoveredError`, so ink-ls's own servers are asked next. Every request has a deadline.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as lsp

from ink_ls.core.tool import open_or_disk_text
from ink_ls.editor.client import EditorClient
from ink_ls.editor.diagnostics import EditorDiagnostics
from ink_ls.editor.documents import OpenDocuments, path_to_uri
from ink_ls.langserver import answers as convert
from ink_ls.protocol.lsp import from_json
from ink_ls.protocol.methods import LANGUAGE_FEATURES
from ink_ls.protocol.models import LanguageFeature, LanguageFeaturesParams, LanguageFeaturesResult
from ink_ls.protocol.models import Position as WirePosition
from ink_ls.tools.lsp_answers import (
    OPERATIONS,
    Call,
    Diagnostic,
    Location,
    LspUnavailableError,
    NotCoveredError,
    Position,
    Symbol,
    TextEdit,
)

T = TypeVar("T")
TIMEOUT = 30.0
"""Seconds the editor has to answer (its servers may be starting on a file it just loaded)."""
_WIRE: dict[str, LanguageFeature] = {
    "definition": "definition",
    "references": "references",
    "implementation": "implementation",
    "hover": "hover",
    "document_symbols": "documentSymbols",
    "workspace_symbols": "workspaceSymbols",
    "incoming_calls": "incomingCalls",
    "outgoing_calls": "outgoingCalls",
    "rename": "rename",
}
_SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}


def _structure(items: list[Any], pick: Callable[[dict[str, Any]], type[T]]) -> list[T]:
    """Raw JSON items as lsprotocol objects, each of the type `pick` names for it."""
    out: list[T] = []
    for item in items:
        if isinstance(item, dict):
            out.append(from_json(item, pick(item)))
    return out


def _location_type(item: dict[str, Any]) -> type[lsp.Location | lsp.LocationLink]:
    return lsp.LocationLink if "targetUri" in item else lsp.Location


def _symbol_type(
    item: dict[str, Any],
) -> type[lsp.DocumentSymbol | lsp.SymbolInformation | lsp.WorkspaceSymbol]:
    if "location" not in item:
        return lsp.DocumentSymbol
    return lsp.SymbolInformation if "range" in item["location"] else lsp.WorkspaceSymbol


def locations(raw: Any) -> list[Location]:
    """`Location[]`/`LocationLink[]` (or one, or null) as records."""
    return [convert.location(i) for i in _structure(convert.as_list(raw), _location_type)]


def hover(raw: Any) -> str:
    """`Hover[]` (or one, or null) as one markdown text, one server's after another's."""
    hovers = _structure(convert.as_list(raw), lambda _: lsp.Hover)
    return "\n\n".join(text for h in hovers if (text := convert.markdown(h.contents).strip()))


def symbols(raw: Any) -> list[Symbol]:
    """Document or workspace symbols (either LSP shape) as records."""
    return [convert.symbol(i) for i in _structure(convert.as_list(raw), _symbol_type)]


def calls(operation: str, raw: Any, caller: Path) -> list[Call]:
    """Call hierarchy answers as call sites; outgoing calls are in `caller` (the asked file)."""
    if operation == "incoming_calls":
        incoming = _structure(convert.as_list(raw), lambda _: lsp.CallHierarchyIncomingCall)
        return convert.incoming_calls(incoming)
    outgoing = _structure(convert.as_list(raw), lambda _: lsp.CallHierarchyOutgoingCall)
    return convert.outgoing_calls(caller.as_uri(), outgoing)


class EditorIntel:
    """Asks the editor's language servers (a `CodeIntel`)."""

    def __init__(
        self,
        client: EditorClient,
        documents: OpenDocuments,
        diagnostics: EditorDiagnostics | None = None,
        *,
        timeout: float = TIMEOUT,
    ) -> None:
        self._client = client
        self._documents = documents
        self._diagnostics = diagnostics
        self.timeout = timeout

    def languages(self) -> list[str]:
        return ["those of the editor's language servers"]

    def operations(self) -> list[str]:
        return [op for op in OPERATIONS if op in _WIRE or self._diagnostics is not None]

    def check(self, path: Path) -> None:
        """Nothing to refuse up front: the editor says which files its servers cover."""

    def _text(self, path: Path) -> str:
        return open_or_disk_text(self._documents, path)

    async def _ask(
        self,
        operation: str,
        path: Path,
        text: str,
        at: Position | None = None,
        **extra: str,
    ) -> Any:
        """The editor's raw result, or `NotCoveredError` when no server of it answers."""
        position = None
        if at is not None:
            pos = convert.position(text, at, self._documents.encoding)
            position = WirePosition(line=pos.line, character=pos.character)
        params = LanguageFeaturesParams.model_validate(
            {
                "operation": _WIRE[operation],
                "textDocument": {"uri": path_to_uri(path)},
                "position": position,
                **extra,
            }
        )
        try:
            raw = await asyncio.wait_for(
                self._client.request(LANGUAGE_FEATURES, params.dump()), self.timeout
            )
        except TimeoutError:
            raise LspUnavailableError(
                f"the editor's language servers did not answer {operation} within "
                f"{self.timeout:g} s; use grep and read instead."
            ) from None
        except Exception as exc:  # an error response: the client could not ask its servers
            raise LspUnavailableError(
                f"the editor could not answer {operation}: {exc}. Use grep and read instead."
            ) from exc
        result = LanguageFeaturesResult.model_validate(raw or {"available": False})
        if not result.available:
            raise NotCoveredError(
                f"no language server in the editor answers {operation} for "
                f"{path.suffix or path.name} files"
            )
        return result.result

    async def locations(
        self, operation: str, path: Path, text: str, at: Position
    ) -> list[Location]:
        return locations(await self._ask(operation, path, text, at))

    async def hover(self, path: Path, text: str, at: Position) -> str:
        return hover(await self._ask("hover", path, text, at))

    async def document_symbols(self, path: Path, text: str) -> list[Symbol]:
        return symbols(await self._ask("document_symbols", path, text))

    async def workspace_symbols(self, path: Path, text: str, query: str) -> list[Symbol]:
        return symbols(await self._ask("workspace_symbols", path, text, query=query))

    async def calls(self, operation: str, path: Path, text: str, at: Position) -> list[Call]:
        return calls(operation, await self._ask(operation, path, text, at), path)

    async def diagnostics(self, path: Path, text: str) -> list[Diagnostic]:
        """What the editor reports for the file (when it offers diagnostics)."""
        if self._diagnostics is None:
            raise NotCoveredError("the editor does not share its diagnostics")
        item = (await self._diagnostics.fetch([path], load=True)).get(os.path.realpath(path))
        if item is None:
            return []
        return [
            Diagnostic(
                d.range.start.line,
                _SEVERITY.get(d.severity or 1, "error"),
                d.message,
                d.source or "",
            )
            for d in item.diagnostics
        ]

    async def rename(
        self, path: Path, text: str, at: Position, new_name: str
    ) -> dict[Path, list[TextEdit]]:
        raw = await self._ask("rename", path, text, at, newName=new_name)
        if not raw:
            return {}
        edit = from_json(raw, lsp.WorkspaceEdit)

        def text_of(target: Path) -> str:
            return text if target == path else self._text(target)

        return convert.text_edits(convert.workspace_edits(edit), text_of, self._documents.encoding)

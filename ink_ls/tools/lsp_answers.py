"""What a language server answers, as plain data, and the interface the `lsp` tool asks through.

The tools layer knows nothing of LSP wire types: an answerer (`ink_ls.langserver` starts the
servers itself; an editor may answer from its own) converts them into these records.
Lines and columns here are 0-based, columns in characters (not UTF-16 units).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, TypeVar, get_args

Operation = Literal[
    "definition",
    "references",
    "implementation",
    "hover",
    "document_symbols",
    "workspace_symbols",
    "incoming_calls",
    "outgoing_calls",
    "diagnostics",
    "rename",
]
T = TypeVar("T")
OPERATIONS: tuple[Operation, ...] = get_args(Operation)
LOCATION_OPERATIONS = ("definition", "references", "implementation")
CALL_OPERATIONS = ("incoming_calls", "outgoing_calls")


class LspUnavailableError(Exception):
    """The question cannot be answered: no server for the file, the server failed or timed
    out, or it lacks the operation. The message is a sentence for the model."""


@dataclass(frozen=True)
class Position:
    line: int
    column: int


@dataclass(frozen=True)
class Location:
    path: Path
    line: int
    column: int = 0


@dataclass
class Symbol:
    """A symbol of a document (with its children) or of the workspace (with its path)."""

    name: str
    kind: str
    line: int
    path: Path | None = None
    detail: str = ""
    children: list[Symbol] = field(default_factory=list)


@dataclass(frozen=True)
class Call:
    """One caller (incoming) or callee (outgoing): the function and where the call is."""

    name: str
    kind: str
    location: Location


@dataclass(frozen=True)
class Diagnostic:
    line: int
    severity: str
    message: str
    source: str = ""


@dataclass(frozen=True)
class TextEdit:
    start: Position
    end: Position
    new_text: str


class CodeIntel(Protocol):
    """Who answers the `lsp` tool's questions for a workspace. Every method may raise
    `LspUnavailableError`; `text` is the file's current text (the agent's view of it), which
    the answerer sends to its server before asking."""

    def languages(self) -> list[str]:
        """The languages some server answers for (shown in the tool's description)."""
        ...

    def operations(self) -> list[str]:
        """The operations some server may answer (shown in the tool's description)."""
        ...

    def check(self, path: Path) -> None:
        """Raises `LspUnavailableError` at once when no server covers `path`'s language."""
        ...

    async def locations(
        self, operation: str, path: Path, text: str, at: Position
    ) -> list[Location]: ...

    async def hover(self, path: Path, text: str, at: Position) -> str: ...

    async def document_symbols(self, path: Path, text: str) -> list[Symbol]: ...

    async def workspace_symbols(self, path: Path, text: str, query: str) -> list[Symbol]: ...

    async def calls(self, operation: str, path: Path, text: str, at: Position) -> list[Call]: ...

    async def diagnostics(self, path: Path, text: str) -> list[Diagnostic]: ...

    async def rename(
        self, path: Path, text: str, at: Position, new_name: str
    ) -> dict[Path, list[TextEdit]]: ...


class NotCoveredError(LspUnavailableError):
    """This answerer has no server for the file or operation: the next one may (the editor's
    servers say so when none of them covers it; then ink-ls's own are asked)."""


class Answerers:
    """Several `CodeIntel`s asked in order: the first that covers a question answers it (the
    editor's servers, then those ink-ls starts). Failures other than `NotCoveredError` are
    told as they are (no silent fallback from a server that broke)."""

    def __init__(self, *chain: CodeIntel) -> None:
        self.chain = chain

    def languages(self) -> list[str]:
        return [name for intel in self.chain for name in intel.languages()]

    def check(self, path: Path) -> None:
        last: LspUnavailableError | None = None
        for intel in self.chain:
            try:
                intel.check(path)
                return
            except LspUnavailableError as exc:
                last = exc
        if last is not None:
            raise last

    def operations(self) -> list[str]:
        offered = {op for intel in self.chain for op in intel.operations()}
        return [op for op in OPERATIONS if op in offered]

    async def _first(self, path: Path, ask: Callable[[CodeIntel], Awaitable[T]]) -> T:
        last: LspUnavailableError = LspUnavailableError(
            f"no language server for {path.suffix or path.name} files"
        )
        for intel in self.chain:
            try:
                intel.check(path)
            except LspUnavailableError as exc:
                last = exc
                continue
            try:
                return await ask(intel)
            except NotCoveredError as exc:
                last = exc
        raise last

    async def locations(
        self, operation: str, path: Path, text: str, at: Position
    ) -> list[Location]:
        return await self._first(path, lambda i: i.locations(operation, path, text, at))

    async def hover(self, path: Path, text: str, at: Position) -> str:
        return await self._first(path, lambda i: i.hover(path, text, at))

    async def document_symbols(self, path: Path, text: str) -> list[Symbol]:
        return await self._first(path, lambda i: i.document_symbols(path, text))

    async def workspace_symbols(self, path: Path, text: str, query: str) -> list[Symbol]:
        return await self._first(path, lambda i: i.workspace_symbols(path, text, query))

    async def calls(self, operation: str, path: Path, text: str, at: Position) -> list[Call]:
        return await self._first(path, lambda i: i.calls(operation, path, text, at))

    async def diagnostics(self, path: Path, text: str) -> list[Diagnostic]:
        return await self._first(path, lambda i: i.diagnostics(path, text))

    async def rename(
        self, path: Path, text: str, at: Position, new_name: str
    ) -> dict[Path, list[TextEdit]]:
        return await self._first(path, lambda i: i.rename(path, text, at, new_name))

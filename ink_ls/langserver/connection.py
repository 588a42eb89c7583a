"""One language server started by ink-ls: a pygls `LanguageClient` over the server's stdio.

Started on first use, documents kept in step (didOpen, then a full-text didChange whenever the
agent's text differs), every request under a timeout, stopped with `close` (shutdown, exit,
then kill). The server's stdin is our pipe, so it also ends when ink-ls dies (kill -9).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as lsp
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient

from ink_ls.langserver.answers import lsp_path
from ink_ls.langserver.servers import ServerCommand
from ink_ls.tools.lsp_answers import LspUnavailableError

T = TypeVar("T")
START_TIMEOUT = 60.0
REQUEST_TIMEOUT = 30.0
_STDERR_KEEP = 2000
FIRST = asyncio.FIRST_COMPLETED


def _capabilities() -> lsp.ClientCapabilities:
    markdown = [lsp.MarkupKind.Markdown, lsp.MarkupKind.PlainText]
    return lsp.ClientCapabilities(
        general=lsp.GeneralClientCapabilities(
            position_encodings=[lsp.PositionEncodingKind.Utf32, lsp.PositionEncodingKind.Utf16]
        ),
        text_document=lsp.TextDocumentClientCapabilities(
            synchronization=lsp.TextDocumentSyncClientCapabilities(),
            hover=lsp.HoverClientCapabilities(content_format=markdown),
            document_symbol=lsp.DocumentSymbolClientCapabilities(
                hierarchical_document_symbol_support=True
            ),
            rename=lsp.RenameClientCapabilities(prepare_support=False),
            publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(),
            call_hierarchy=lsp.CallHierarchyClientCapabilities(),
        ),
        workspace=lsp.WorkspaceClientCapabilities(
            workspace_edit=lsp.WorkspaceEditClientCapabilities(document_changes=True),
            symbol=lsp.WorkspaceSymbolClientCapabilities(),
        ),
    )


class Connection:
    """A running server for one language of one workspace."""

    def __init__(
        self, command: ServerCommand, root: Path, env: Mapping[str, str] | None = None
    ) -> None:
        self.command = command
        self.env = env
        self.root = root
        self.client = LanguageClient("ink-ls", "1")
        self.capabilities: lsp.ServerCapabilities | None = None
        self.utf16 = True
        self._opened: dict[str, tuple[int, str]] = {}
        self._stderr = b""
        self._sync = asyncio.Lock()
        self.diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        self.published = asyncio.Condition()
        self._tasks: list[asyncio.Task[Any]] = []
        self.process: asyncio.subprocess.Process | None = None
        self._stop = threading.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
        async def _published(params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            async with self.published:
                self.published.notify_all()

    @property
    def label(self) -> str:
        return " ".join(self.command.argv)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def failure(self, what: str) -> LspUnavailableError:
        """An error naming the command, with the end of its stderr when it said something."""
        said = self._stderr.decode(errors="replace").strip()[-400:]
        tail = f" It said: {said}" if said else ""
        return LspUnavailableError(
            f"the {self.command.language} language server `{self.label}` {what}.{tail} "
            "Use grep and read instead, or fix the `lsp` setting."
        )

    async def start(self) -> None:
        """Start the process and initialize it (raises `LspUnavailableError` naming it)."""
        program, *args = self.command.argv
        try:  # started here, not by `start_io`, so that the process is ours to watch
            self.process = server = await asyncio.create_subprocess_exec(
                program,
                *args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=str(self.root),
                env=self.env,
            )
        except OSError as exc:
            raise self.failure(f"could not start ({exc.strerror or exc})") from exc
        assert server.stdin is not None and server.stdout is not None and server.stderr
        self.client.protocol.set_writer(server.stdin)
        reading = run_async(
            stop_event=self._stop, reader=server.stdout, protocol=self.client.protocol
        )
        self._tasks += [
            asyncio.create_task(reading),
            asyncio.create_task(self._drain(server.stderr)),
        ]
        params = lsp.InitializeParams(
            capabilities=_capabilities(),
            process_id=None,
            root_uri=self.root.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)],
        )
        result = await self.ask(self.client.initialize_async(params), "initialize", START_TIMEOUT)
        self.capabilities = result.capabilities
        self.utf16 = result.capabilities.position_encoding != lsp.PositionEncodingKind.Utf32
        self.client.initialized(lsp.InitializedParams())

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        """Reads the server's stderr so it never blocks on a full pipe; keeps the end."""
        while chunk := await stream.read(4096):
            self._stderr = (self._stderr + chunk)[-_STDERR_KEEP:]

    def exited(self) -> bool:
        return self.process is None or self.process.returncode is not None

    async def ask(self, request: Awaitable[T], what: str, timeout: float = REQUEST_TIMEOUT) -> T:
        """The answer to `request`, or `LspUnavailableError` on a timeout, crash or error."""
        if self.exited() and what != "initialize":
            if asyncio.iscoroutine(request):
                request.close()
            raise self.failure("has exited")
        assert self.process is not None
        answer = asyncio.ensure_future(request)
        exit_ = asyncio.ensure_future(self.process.wait())
        try:
            done, _ = await asyncio.wait({answer, exit_}, timeout=timeout, return_when=FIRST)
        finally:
            exit_.cancel()
        if answer not in done:
            answer.cancel()
            if exit_ in done:
                raise self.failure(f"stopped while answering {what}")
            raise self.failure(f"did not answer {what} within {timeout:g} s")
        try:
            return answer.result()
        except Exception as exc:  # an error response from the server
            raise LspUnavailableError(
                f"the {self.command.language} language server `{self.label}` answered {what} "
                f"with an error: {exc}"
            ) from exc

    async def sync(self, path: Path, text: str, language_id: str) -> str:
        """Send `text` as `path`'s content if the server has not seen it; returns the URI.
        Other open documents are re-read from disk (the agent may have edited them)."""
        uri = path.as_uri()
        async with self._sync:
            for other, (_version, _seen) in list(self._opened.items()):
                if other != uri:
                    with contextlib.suppress(OSError, ValueError):
                        disk = Path(lsp_path(other)).read_text(encoding="utf-8")
                        self._send(other, disk, language_id)
            self._send(uri, text, language_id)
        return uri

    def _send(self, uri: str, text: str, language_id: str) -> None:
        known = self._opened.get(uri)
        if known is None:
            item = lsp.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)
            self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))
            self._opened[uri] = (1, text)
        elif known[1] != text:
            version = known[0] + 1
            self.client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
            self._opened[uri] = (version, text)

    async def close(self, timeout: float = 1.5) -> None:
        """Shutdown, exit and end of input (some servers only stop on EOF), then kill the
        process if it is still there after `timeout` seconds."""
        server = self.process
        if server is not None and server.returncode is None:
            with contextlib.suppress(Exception):
                await self.ask(self.client.shutdown_async(None), "shutdown", timeout / 3)
                self.client.exit(None)
            if server.stdin is not None:
                server.stdin.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.wait(), timeout / 2)
            if server.returncode is None:
                server.kill()
                await server.wait()
        self._stop.set()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

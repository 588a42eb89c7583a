"""Builds the pygls language server of ink-ls and runs it (stdio or TCP). No business logic.

`InkProtocol` makes `ink/*` traffic plain JSON (params reach handlers as dicts, results go out
as given), answers a `$/cancelRequest` of a prompt by cancelling its turn, and never lets a
traceback cross the wire; its `refusal` names the well-formed requests it must not handle (a
notification method with an id, a second `initialize`, anything after `shutdown`). `InkServer`
serves through `handlers.wire.StrictWire` (never deaf after a bad frame; every malformed
message answered with a plain JSON-RPC error). pygls is used through its public API; the two
internals it lacks a public way for are in `handlers.pygls_compat`.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter, lsp_method

from ink_ls import __version__
from ink_ls.handlers import commands, ink, lifecycle
from ink_ls.handlers.pygls_compat import TracebackFreeResponses, send_message
from ink_ls.handlers.state import ServerState
from ink_ls.handlers.wire import StrictWire
from ink_ls.protocol import methods
from ink_ls.protocol.errors import PARSE_ERROR, InkErrorCode
from ink_ls.protocol.framing import INVALID_REQUEST, WireError
from ink_ls.tools.processes import install_exit_cleanup

if TYPE_CHECKING:
    from ink_ls.editor.host import HostDeps

log = logging.getLogger(__name__)


# No attribute defaults: lsprotocol's converter omits default values when unstructuring.
@attrs.define
class RawRequest:
    id: int | str
    method: str
    jsonrpc: str
    params: Any


@attrs.define
class RawNotification:
    method: str
    jsonrpc: str
    params: Any


@attrs.define
class RawResponse:
    id: int | str
    jsonrpc: str
    result: Any


_ANSWERED = object()
"""What `structure_message` returns for a request it already answered with an error."""

_RAW_REQUESTS = frozenset(methods.INK_REQUESTS + methods.SERVER_REQUESTS)
_RAW_NOTIFICATIONS = frozenset(methods.SERVER_NOTIFICATIONS + methods.INK_CLIENT_NOTIFICATIONS)


def _keep_dicts(obj: dict[str, Any], cls: type[Any]) -> Any:
    values = {a.name: obj.get(a.name) for a in attrs.fields(cls)}
    return cls(**values)


# the params are JSON already: no deep unstructuring of the hot update stream
def _request_as_sent(m: RawRequest) -> dict[str, Any]:
    return {"jsonrpc": m.jsonrpc, "id": m.id, "method": m.method, "params": m.params}


def _notification_as_sent(m: RawNotification) -> dict[str, Any]:
    return {"jsonrpc": m.jsonrpc, "method": m.method, "params": m.params}


def ink_converter() -> Any:
    """pygls' converter, plus hooks that keep `ink/*` params and raw results as dicts."""
    converter = default_converter()  # type: ignore[no-untyped-call]
    for cls in (RawRequest, RawNotification, RawResponse):
        converter.register_structure_hook(cls, _keep_dicts)
    converter.register_unstructure_hook(RawRequest, _request_as_sent)
    converter.register_unstructure_hook(RawNotification, _notification_as_sent)
    return converter


class InkProtocol(TracebackFreeResponses):
    """LSP protocol with plain-JSON `ink/*` messages and cancel-as-turn-cancel."""

    state: ServerState
    exit_code = 0
    """1 when the client sent `exit` without `shutdown` first."""
    initialize_seen = False
    shut_down = False
    """True once `shutdown` was answered: only `exit` is served from then on."""

    def refusal(self, data: dict[str, Any]) -> WireError | None:
        """The error for a well-formed request the server must not handle, else None."""
        method, msg_id = data.get("method"), data.get("id")
        if not isinstance(method, str) or "id" not in data:
            return None  # a notification or a response
        assert isinstance(msg_id, int | str)
        message_type = self.get_message_type(method)
        if (
            message_type is not None
            and attrs.has(message_type)
            and "id" not in {a.name for a in attrs.fields(message_type)}
        ):
            return WireError(
                INVALID_REQUEST,
                f"invalid request: {method} is a notification; send it without an id",
                msg_id,
            )
        if method == types.INITIALIZE and self.initialize_seen:
            return WireError(
                INVALID_REQUEST,
                "invalid request: the server is already "
                "initialized; initialize may be sent only once",
                msg_id,
            )
        if self.shut_down and method != types.EXIT:
            code = InkErrorCode.SHUTTING_DOWN if method.startswith("ink/") else INVALID_REQUEST
            return WireError(
                int(code),
                f"the server is shut down: {method} is refused; only exit is accepted",
                msg_id,
            )
        return None

    def send_wire_error(self, error: WireError) -> None:
        send_message(
            self,
            {
                "jsonrpc": "2.0",
                "id": error.id,
                "error": {"code": error.code, "message": error.message},
            },
        )

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        yield from super().lsp_shutdown(*args)
        self.shut_down = True

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        self.exit_code = 0 if self.shut_down else 1
        yield from super().lsp_exit(*args)

    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in _RAW_REQUESTS:
            return RawRequest
        if method in _RAW_NOTIFICATIONS:
            return RawNotification
        return super().get_message_type(method)

    def get_result_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in _RAW_REQUESTS:
            return RawResponse
        return super().get_result_type(method)

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" not in data or "method" not in data:
                raise  # a notification or response: nobody to answer, log only
            # a request whose params do not fit the LSP type: answer it, never leave it hanging
            message = f"{exc.message}: params of {data['method']}"
            self.send_wire_error(WireError(exc.code, message, data["id"]))
            return _ANSWERED

    def handle_message(self, message: Any) -> None:
        if message is _ANSWERED:
            return
        if isinstance(message, types.CancelNotification) and not self.shut_down:
            host = self.state.host
            if host is not None and host.cancel_request(message.params.id):
                return  # the prompt answers `cancelled` itself once the turn has wound down
        super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        self.initialize_seen = True
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        experimental = params.capabilities.experimental
        if isinstance(experimental, dict) and "ink" in experimental:
            # An ink plugin (VS Code, Neovim) has its own commands: vscode-languageclient would
            # register the server's `ink.ask` as a VS Code command and clash with the
            # extension's. The code actions and commands are for plugin-less clients.
            result.capabilities.execute_command_provider = None
            result.capabilities.code_action_provider = None
        result.capabilities.experimental = {
            "ink": {
                "version": methods.PROTOCOL_VERSION,
                "methods": list(methods.INK_REQUESTS),
                "notifications": list(methods.INK_NOTIFICATIONS),
            }
        }
        return result


class InkServer(StrictWire):
    """The ink-ls language server; `report_server_error` logs instead of messaging the user."""

    def report_server_error(self, error: Exception, source: Any) -> None:
        if isinstance(error, json.JSONDecodeError):
            # malformed JSON: answer per JSON-RPC (id null) and keep serving
            self._checks().send_wire_error(WireError(PARSE_ERROR, f"parse error: {error.msg}"))
            return
        if isinstance(error, JsonRpcException):
            log.warning("protocol error: %s", error.message)
            return
        log.error("server error: %s", error)


def build_server(deps: HostDeps | None = None) -> InkServer:
    """A configured server with every handler registered (not started)."""
    # pygls logs whole message bodies at INFO/DEBUG, `initialize` (with the API key) included
    logging.getLogger("pygls").setLevel(logging.WARNING)
    server = InkServer(
        "ink-ls",
        __version__,
        text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        protocol_cls=InkProtocol,
        converter_factory=ink_converter,
    )
    state = ServerState(deps=deps)  # None: `default_deps()`, built with the host
    protocol = server.protocol
    assert isinstance(protocol, InkProtocol)
    protocol.state = state
    lifecycle.register(server, state)
    ink.register(server, state)
    commands.register(server, state)
    return server


def registered_methods(server: LanguageServer) -> set[str]:
    """Every method the server handles (for the protocol.md check)."""
    fm = server.protocol.fm
    return set(fm.features) | set(fm.builtin_features)


def run_server(transport: str = "stdio", host: str = "127.0.0.1", port: int = 2087) -> None:
    """Serve one client over `transport` ("stdio" or "tcp"); kills tool processes on the way out."""
    server = build_server()
    install_exit_cleanup()  # SIGTERM/SIGINT/SIGHUP and interpreter exit kill tool processes
    try:
        if transport == "tcp":
            server.start_tcp(host, port)
        else:
            server.start_io(sys.stdin.buffer, sys.stdout.buffer)
    finally:
        lifecycle.kill_tool_processes()
    protocol = server.protocol
    if isinstance(protocol, InkProtocol) and protocol.exit_code:
        raise SystemExit(protocol.exit_code)  # `exit` before `shutdown` (LSP: code 1)

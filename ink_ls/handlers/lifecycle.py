"""Handlers of the standard LSP side: initialize, settings, document sync, progress cancel,
shutdown. They feed the editor glue; no agent logic here."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.lsp.server import LanguageServer

from ink_ls.core.hidden_env import hide_env
from ink_ls.editor.client import ClientFeatures
from ink_ls.editor.documents import uri_to_path
from ink_ls.handlers._client import PyglsClient
from ink_ls.handlers.state import ServerState
from ink_ls.protocol import lsp
from ink_ls.protocol.methods import SHOW_MESSAGE
from ink_ls.tools.processes import kill_all_tracked

if TYPE_CHECKING:
    from ink_ls.editor.host import Host, HostDeps

log = logging.getLogger(__name__)

SHUTDOWN_WAIT = 12.0
"""Seconds `shutdown` waits for cancelled turns to answer (the grace period is 10 s)."""


def _workspace_root(params: types.InitializeParams) -> Path:
    uris = [f.uri for f in params.workspace_folders or []]
    if params.root_uri:
        uris.insert(0, params.root_uri)
    for uri in uris:
        path = uri_to_path(uri)
        if path is not None and path.is_dir():
            return path.resolve()
    if params.root_path:
        return Path(params.root_path).resolve()
    return Path.cwd()


def _ink_section(raw: Any) -> Any:
    return raw.get("ink") if isinstance(raw, dict) else None


def _named_key_env(raw: Any) -> list[str]:
    """`ink.model.apiKeyEnv` as sent, read without building the settings models."""
    model = raw.get("model") if isinstance(raw, dict) else None
    if not isinstance(model, dict):
        return []
    names = (model.get("apiKeyEnv"), model.get("api_key_env"))
    return [name for name in names if isinstance(name, str)]


def warn_settings(client: PyglsClient, problems: list[str]) -> None:
    """One Warning naming every bad settings key."""
    if problems:
        message = f"ink: invalid settings ignored ({'; '.join(problems)}); using defaults"
        client.notify(SHOW_MESSAGE, lsp.show_message_params(message))


def kill_tool_processes() -> None:
    """Kill every process group the tools still track (no child survives the server)."""
    kill_all_tracked()


def _host_builder(
    client: PyglsClient, state: ServerState, params: types.InitializeParams
) -> Callable[[HostDeps], Host]:
    """What `initialize` learns, bound into the later building of the host: the settings are
    validated (pydantic) and the agent's modules imported only then."""
    features = ClientFeatures.from_capabilities(lsp.to_json(params.capabilities))
    cwd = _workspace_root(params)
    raw = _ink_section(params.initialization_options)

    def build(deps: HostDeps) -> Host:
        from ink_ls.editor.host import Host
        from ink_ls.editor.settings import parse_settings

        settings, problems = parse_settings(raw)
        warn_settings(client, problems)
        hide_env(settings.model.secret_env_names())  # out of reach of commands from now on
        return Host(
            client, deps, cwd=cwd, documents=state.documents, features=features, settings=settings
        )

    return build


def register(server: LanguageServer, state: ServerState) -> None:
    """Register lifecycle and document handlers on `server`."""
    client = PyglsClient(server.protocol)

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        encoding = ServerCapabilitiesBuilder.choose_position_encoding(params.capabilities)
        state.documents.encoding = str(getattr(encoding, "value", encoding))
        # a key variable the settings name is out of reach of commands at once (validated
        # with the rest of the settings when the host is built)
        hide_env(_named_key_env(_ink_section(params.initialization_options)))
        state.pending = _host_builder(client, state, params)

    @server.feature(types.INITIALIZED)
    def initialized(params: types.InitializedParams) -> None:
        # after the answer: the client is not waiting on us for the heavy part
        state.start_host()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        from ink_ls.editor.settings import parse_settings

        raw = _ink_section(params.settings)
        host = state.start_host()
        if raw is None or host is None:
            return
        settings, problems = parse_settings(raw, base=host.settings)
        warn_settings(client, problems)
        hide_env(settings.model.secret_env_names())
        host.settings = settings

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        state.documents.did_open(doc.uri, doc.text, doc.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        changes = [lsp.to_json(c) for c in params.content_changes]
        doc = params.text_document
        state.documents.did_change(doc.uri, doc.version, changes)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        state.documents.did_close(params.text_document.uri)

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(params: types.WorkDoneProgressCancelParams) -> None:
        if state.host is not None:
            state.host.cancel_token(params.token)

    @server.feature(types.SHUTDOWN)
    async def shutdown(params: Any) -> None:
        if state.host is not None:
            await state.host.shutdown(SHUTDOWN_WAIT)
        kill_tool_processes()

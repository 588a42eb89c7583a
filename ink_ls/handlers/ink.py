"""Handlers of the `ink/*` requests: validate the params, call the host, dump the result."""

from __future__ import annotations

from typing import Any

from pygls.lsp.server import LanguageServer

from ink_ls.handlers._errors import guarded, validate
from ink_ls.handlers.state import ServerState
from ink_ls.protocol import methods


def register(server: LanguageServer, state: ServerState) -> None:
    """Register the `ink/*` request handlers on `server`. The wire models are imported at the
    first request (pydantic is not on the `initialize` path)."""

    @server.feature(methods.SESSION_PROMPT)
    @guarded
    async def prompt(params: Any) -> dict[str, Any]:
        from ink_ls.protocol.models import SessionPromptParams

        request = validate(SessionPromptParams, params)
        request_id = server.protocol.msg_id
        result = await state.require_host().prompt(request, request_id=request_id)
        return result.dump()

    @server.feature(methods.SESSION_CANCEL)
    @guarded
    async def cancel(params: Any) -> None:
        from ink_ls.protocol.models import SessionCancelParams

        request = validate(SessionCancelParams, params)
        state.require_host().cancel(request.session_id)

    @server.feature(methods.SESSION_LIST)
    @guarded
    async def list_sessions(params: Any) -> dict[str, Any]:
        from ink_ls.protocol.models import SessionListParams

        validate(SessionListParams, params)
        return state.require_host().list_sessions().dump()

    @server.feature(methods.SESSION_CLOSE)
    @guarded
    async def close(params: Any) -> None:
        from ink_ls.protocol.models import SessionCloseParams

        request = validate(SessionCloseParams, params)
        await state.require_host().close(request)

    @server.feature(methods.SESSION_COMPACT)
    @guarded
    async def compact(params: Any) -> dict[str, Any]:
        from ink_ls.protocol.models import SessionCompactParams

        request = validate(SessionCompactParams, params)
        request_id = server.protocol.msg_id
        result = await state.require_host().compact(request, request_id=request_id)
        return result.dump()

    @server.feature(methods.SESSION_CHECKPOINTS)
    @guarded
    async def session_checkpoints(params: Any) -> dict[str, Any]:
        from ink_ls.protocol.models import SessionCheckpointsParams

        request = validate(SessionCheckpointsParams, params)
        return state.require_host().checkpoints(request.session_id).dump()

    @server.feature(methods.SESSION_CHANGES)
    @guarded
    async def session_changes(params: Any) -> dict[str, Any]:
        from ink_ls.protocol.models import SessionChangesParams

        request = validate(SessionChangesParams, params)
        return (await state.require_host().changes(request)).dump()

    @server.feature(methods.SESSION_REWIND)
    @guarded
    async def session_rewind(params: Any) -> dict[str, Any]:
        from ink_ls.protocol.models import SessionRewindParams

        request = validate(SessionRewindParams, params)
        return (await state.require_host().rewind(request)).dump()

    @server.feature(methods.DIAGNOSTICS_CHANGED)
    def diagnostics_changed(params: Any) -> None:
        from ink_ls.protocol.models import DiagnosticsChangedParams

        host = state.host
        if host is None or host.diagnostics is None:
            return
        try:
            changed = DiagnosticsChangedParams.model_validate(params)
        except ValueError:
            return  # a notification has nobody to answer; ignore what does not parse
        host.diagnostics.changed(changed.uris)

    @server.feature(methods.SESSION_LOAD)
    @guarded
    async def load(params: Any) -> dict[str, Any]:
        from ink_ls.protocol.models import SessionLoadParams

        request = validate(SessionLoadParams, params)
        return state.require_host().load(request.session_id).dump()

    @server.feature(methods.TOOLS)
    @guarded
    async def tools(params: Any) -> dict[str, Any]:
        from ink_ls.protocol.models import ToolsParams

        validate(ToolsParams, params)
        return (await state.require_host().tools()).dump()

    @server.feature(methods.COMMANDS_LIST)
    @guarded
    async def commands(params: Any) -> dict[str, Any]:
        from ink_ls.protocol.models import CommandsParams

        validate(CommandsParams, params)
        return state.require_host().commands().dump()

    @server.feature(methods.MCP_STATUS)
    @guarded
    async def mcp_status(params: Any) -> dict[str, Any]:
        from ink_ls.protocol.models import McpStatusParams

        validate(McpStatusParams, params)
        return (await state.require_host().mcp_status()).dump()

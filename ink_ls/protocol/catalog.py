"""The `ink/*` methods as data: each name (from `methods`) with its direction and payload models.

The one place that says which model is the params or result of which method; the JSON Schema
export (`protocol.codegen`) reads it. The server's handlers do not need it at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ink_ls.protocol import methods
from ink_ls.protocol.models import (
    CommandsParams,
    CommandsResult,
    DiagnosticsChangedParams,
    DiagnosticsParams,
    DiagnosticsResult,
    LanguageFeaturesParams,
    LanguageFeaturesResult,
    McpStatusParams,
    McpStatusResult,
    SessionCancelParams,
    SessionChangesParams,
    SessionChangesResult,
    SessionCheckpointsParams,
    SessionCheckpointsResult,
    SessionCloseParams,
    SessionCompactParams,
    SessionCompactResult,
    SessionListParams,
    SessionListResult,
    SessionLoadParams,
    SessionLoadResult,
    SessionPromptParams,
    SessionPromptResult,
    SessionRewindParams,
    SessionRewindResult,
    SessionUpdateParams,
    ToolsParams,
    ToolsResult,
    WireModel,
)

Direction = Literal["clientToServer", "serverToClient"]


@dataclass(frozen=True)
class MethodSpec:
    """One `ink/*` method: `const` names its constant in `ink_ls.protocol.methods`."""

    const: str
    direction: Direction
    params: type[WireModel]
    result: type[WireModel] | None = None
    """The result model of a request; None: the result is `null` (or it is a notification)."""
    notification: bool = False

    @property
    def name(self) -> str:
        """The method name on the wire, e.g. `ink/session/prompt`."""
        value = getattr(methods, self.const)
        assert isinstance(value, str)
        return value


_C2S: Direction = "clientToServer"
_S2C: Direction = "serverToClient"

METHODS: tuple[MethodSpec, ...] = (
    MethodSpec("SESSION_PROMPT", _C2S, SessionPromptParams, SessionPromptResult),
    MethodSpec("SESSION_CANCEL", _C2S, SessionCancelParams),
    MethodSpec("SESSION_LIST", _C2S, SessionListParams, SessionListResult),
    MethodSpec("SESSION_CLOSE", _C2S, SessionCloseParams),
    MethodSpec("SESSION_COMPACT", _C2S, SessionCompactParams, SessionCompactResult),
    MethodSpec("SESSION_LOAD", _C2S, SessionLoadParams, SessionLoadResult),
    MethodSpec("SESSION_CHECKPOINTS", _C2S, SessionCheckpointsParams, SessionCheckpointsResult),
    MethodSpec("SESSION_REWIND", _C2S, SessionRewindParams, SessionRewindResult),
    MethodSpec("SESSION_CHANGES", _C2S, SessionChangesParams, SessionChangesResult),
    MethodSpec("TOOLS", _C2S, ToolsParams, ToolsResult),
    MethodSpec("COMMANDS_LIST", _C2S, CommandsParams, CommandsResult),
    MethodSpec("MCP_STATUS", _C2S, McpStatusParams, McpStatusResult),
    MethodSpec("SESSION_UPDATE", _S2C, SessionUpdateParams, notification=True),
    MethodSpec("DIAGNOSTICS", _S2C, DiagnosticsParams, DiagnosticsResult),
    MethodSpec("DIAGNOSTICS_CHANGED", _C2S, DiagnosticsChangedParams, notification=True),
    MethodSpec("LANGUAGE_FEATURES", _S2C, LanguageFeaturesParams, LanguageFeaturesResult),
)
"""Every `ink/*` method, in the order protocol.md lists them."""

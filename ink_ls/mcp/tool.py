"""One MCP server tool as one of our tools: `mcp__<server>__<tool>`, its schema as given.

Arguments are checked against the server's JSON schema (`jsonschema`) before the gate sees
them. `readOnlyHint` makes a call concurrency-safe; read-only tools of a trusted server
declare that they touch no paths, so the approval gate lets them through without asking.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import mcp_types as types
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from mcp.shared.exceptions import MCPError
from pydantic import ConfigDict

from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import Access, ArgumentsError, Tool, ToolContext, ToolParams, ToolResult
from ink_ls.mcp.connection import (
    CallCancelledError,
    CallTimedOutError,
    ServerConnection,
    ServerGoneError,
)
from ink_ls.mcp.results import to_tool_result, too_large
from ink_ls.mcp.stdio import RESULT_TOO_LARGE

MAX_NAME = 64
MAX_ERRORS = 5
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class McpArgs(ToolParams):
    """Whatever the server's schema allows (checked by `jsonschema`, not pydantic)."""

    model_config = ConfigDict(extra="allow")


def sanitise(text: str) -> str:
    """Characters a model API accepts in a tool name (`[A-Za-z0-9_-]`); others become `_`."""
    return _UNSAFE.sub("_", text) or "_"


def tool_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, sanitised and cut at 64 characters."""
    return f"mcp__{sanitise(server)}__{sanitise(tool)}"[:MAX_NAME]


def check_schema(schema: dict[str, Any]) -> str | None:
    """Why this input schema cannot be sent to a model, or None when it can."""
    if schema.get("type") != "object":
        return 'its input schema is not of type "object"'
    try:
        validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return f"its input schema is invalid at {where}: {exc.message}"
    return None


def _pointer(path: Any) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else "(root)"


class McpTool(Tool[McpArgs]):
    """A tool of a connected MCP server."""

    params_model = McpArgs

    def __init__(self, name: str, server: ServerConnection, remote: types.Tool) -> None:
        self.name = name
        self.server = server
        self.remote = remote
        hints = remote.annotations
        self.read_only = bool(hints is not None and hints.read_only_hint)
        self.concurrency_safe = self.read_only
        described = remote.description or remote.title or f"The {remote.name} tool"
        self.description = f"{described}\n\n(MCP server {server.config.name}, tool {remote.name})"
        self._schema: dict[str, Any] = dict(remote.input_schema)
        self._entry: dict[str, Any] | None = None
        # the draft the schema names (`$schema`), else 2020-12
        self._validator = validator_for(self._schema, default=Draft202012Validator)(self._schema)

    @property
    def server_name(self) -> str:
        return self.server.config.name

    def parameters(self) -> dict[str, Any]:
        return copy.deepcopy(self._schema)

    def schema(self) -> dict[str, Any]:
        """The entry the model sees, made once per tool (the server's schema as announced;
        shared by every request: read it, never change it)."""
        if self._entry is None:
            self._entry = {"name": self.name, "description": self.description}
            self._entry["parameters"] = self.parameters()
        return self._entry

    def validate_arguments(self, data: dict[str, Any]) -> ToolParams:
        errors = sorted(self._validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        if errors:
            raise ArgumentsError(
                [(_pointer(e.absolute_path), e.message) for e in errors[:MAX_ERRORS]]
            )
        return McpArgs.model_validate(data)

    def access(self, args: McpArgs, cwd: Path) -> Access | None:
        # Touching no path passes the gate in every mode; anything else asks like a command.
        return Access() if self.read_only and self.server.config.trusted else None

    async def execute(
        self, args: McpArgs, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        server = self.server_name
        report = context.progress

        def on_progress(value: float, total: float | None, message: str | None) -> None:
            if report is not None:
                done = f"{value:g}/{total:g}" if total else f"{value:g}"
                report(f"{done} {message}".strip() if message else done)

        try:
            result = await self.server.call(
                self.remote.name, args.model_dump(), signal, on_progress
            )
        except ServerGoneError as exc:
            return _failed(
                f'Error: MCP server "{server}" is not available: {exc}. '
                "It is started again on the next call of its tools."
            )
        except CallCancelledError as exc:
            return _failed(
                f"Cancelled ({exc}); the MCP server {server} was told to stop the "
                "call (notifications/cancelled)."
            )
        except CallTimedOutError as exc:
            return _failed(
                f'Error: MCP server "{server}" gave no result ({exc}); the call was cancelled '
                "(notifications/cancelled). Try a smaller request, or go on without this tool."
            )
        except MCPError as exc:
            if exc.code == RESULT_TOO_LARGE:
                return _failed(too_large(self.name, exc.data))
            return _failed(
                f'Error: MCP server "{server}" answered the call with an error: '
                f"{exc.message} (code {exc.code})"
            )
        return to_tool_result(result)


def _failed(text: str) -> ToolResult:
    return ToolResult(output=text, is_error=True)

"""Lua of the Neovim plugin from the protocol's JSON Schema: the method-name and value tables the
plugin's code reads, and `---@class`/`---@alias` annotations of every payload (`protocol.lua`)."""

from __future__ import annotations

from typing import Any

from ink_ls.protocol.codegen._types import Syntax, scalars, type_of
from ink_ls.protocol.codegen.schema import SCHEMA_PATH

JSON = dict[str, Any]
LUA_PATH = "editors/nvim/lua/ink/protocol.lua"
PREFIX = "ink."

# value tables: name → (comment, how to find the values in `$defs`)
_VALUES: dict[str, tuple[str, tuple[str, ...]]] = {
    "updates": ("values of `update.sessionUpdate` in ink/session/update", ("SessionUpdate",)),
    "phases": ("values of `phase` in a tool_call_update", ("ToolCallUpdate", "phase")),
    "statuses": ("values of `status` in a tool_call_update", ("ToolStatus",)),
    "stop_reasons": ("stopReason of a turn (prompt result and turn_end)", ("StopReason",)),
    "approval_options": (
        "optionId of the approval actions in window/showMessageRequest",
        ("ApprovalOptionId",),
    ),
}


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return str(value).lower() if isinstance(value, bool) else str(value)


LUA = Syntax(
    name=lambda name: PREFIX + name,
    literal=_literal,
    union="|",
    array=lambda item: f"({item})[]" if "|" in item else f"{item}[]",
    record=lambda value: f"table<string, {value}>",
    any_value="any",
    simple=scalars(integer="integer", null="nil"),
)


def lua_type(schema: JSON) -> str:
    """The LuaCATS type of one JSON Schema node."""
    return type_of(schema, LUA)


def _values(defs: JSON, where: tuple[str, ...]) -> list[str]:
    node = defs[where[0]]
    if len(where) > 1:
        node = node["properties"][where[1]]
    if "discriminator" in node:
        return list(node["discriminator"]["mapping"])
    values: list[str] = node["enum"]
    return values


def _table(name: str, comment: str, pairs: list[tuple[str, Any]]) -> list[str]:
    lines = [f"--- {comment}", f"M.{name} = {{"]
    lines += [f"  {key} = {_literal(value)}," for key, value in pairs]
    return [*lines, "}", ""]


def _annotation(name: str, schema: JSON) -> list[str]:
    doc = [f"--- {line}".rstrip() for line in (schema.get("description") or "").splitlines()]
    if schema.get("type") == "object" and "oneOf" not in schema:
        out = [*doc, f"---@class {PREFIX}{name}"]
        required = schema.get("required", [])
        for key, prop in schema.get("properties", {}).items():
            optional = "" if key in required else "?"
            note = (prop.get("description") or "").split("\n", 1)[0]
            out.append(f"---@field {key}{optional} {lua_type(prop)} {note}".rstrip())
        return out
    members = [lua_type(s) for s in schema["oneOf"]] if "oneOf" in schema else [lua_type(schema)]
    return [*doc, f"---@alias {PREFIX}{name} {'|'.join(members)}"]


def render_lua(schema: JSON) -> str:
    """The whole `protocol.lua` for `schema`."""
    defs: JSON = schema["$defs"]
    out = [
        f"--- The ink-ls wire protocol for the plugin, generated from {SCHEMA_PATH} by",
        "--- scripts/gen-protocol. Do not edit: change ink_ls/protocol and regenerate.",
        "--- Constants for the code; `---@class` annotations of the payloads (no behaviour).",
        "local M = {}",
        "",
        f"M.VERSION = {_literal(schema['version'])}",
        "",
    ]
    methods = [(c.lower(), m["method"]["const"]) for c, m in schema["methods"].items()]
    out += _table("methods", "ink/* requests and notifications, both directions", methods)
    lsp = [(c.lower(), v) for c, v in schema["lspMethods"].items()]
    out += _table("lsp", "standard LSP methods the plugin handles or sends for ink-ls", lsp)
    for name, (comment, where) in _VALUES.items():
        out += _table(name, comment, [(v, v) for v in _values(defs, where)])
    errors = [(c.lower(), v) for c, v in schema["errorCodes"].items()]
    out += _table("errors", "JSON-RPC application error codes (InkErrorCode)", errors)
    for const, value in schema["constants"].items():
        if const != "PROTOCOL_VERSION":
            out.append(f"M.{const} = {_literal(value)}")
    for name, definition in defs.items():
        out += ["", *_annotation(name, definition)]
    return "\n".join([*out, "", "return M"]) + "\n"

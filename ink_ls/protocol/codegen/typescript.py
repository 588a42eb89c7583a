"""TypeScript of the VS Code extension from the protocol's JSON Schema: interfaces, unions,
method-name constants and per-method type maps (`protocol.generated.ts`)."""

from __future__ import annotations

import json
import re
from typing import Any

from ink_ls.protocol.codegen._types import Syntax, scalars, type_of
from ink_ls.protocol.codegen.schema import SCHEMA_PATH

JSON = dict[str, Any]
TS_PATH = "editors/vscode/src/protocol.generated.ts"
_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return json.dumps(value)


def ts_type(schema: JSON) -> str:
    """The TypeScript type of one JSON Schema node."""
    return type_of(schema, TS)


def _member(key: str, prop: JSON, owner: JSON) -> str:
    optional = "" if key in owner.get("required", []) else "?"
    name = key if _IDENT.match(key) else _literal(key)
    return f"{name}{optional}: {ts_type(prop)};"


TS = Syntax(
    name=lambda name: name,
    literal=_literal,
    union=" | ",
    array=lambda item: f"({item})[]" if " " in item else f"{item}[]",
    record=lambda value: f"Record<string, {value}>",
    any_value="unknown",
    simple=scalars(integer="number", null="null"),
    inline_object=lambda schema: (
        "{ " + " ".join(_member(k, v, schema) for k, v in schema["properties"].items()) + " }"
    ),
)


def _doc(text: str | None, indent: str = "") -> list[str]:
    if not text:
        return []
    lines = text.replace("*/", "*\\/").splitlines()
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**", *(f"{indent} * {line}".rstrip() for line in lines), f"{indent} */"]


def _definition(name: str, schema: JSON) -> list[str]:
    out = _doc(schema.get("description"))
    if schema.get("type") == "object" and not schema.get("properties"):
        return [*out, f"export type {name} = Record<string, never>;"]  # `{}`: no members
    if schema.get("type") == "object" and "oneOf" not in schema:
        out.append(f"export interface {name} {{")
        for key, prop in schema.get("properties", {}).items():
            out += _doc(prop.get("description"), "  ")
            out.append(f"  {_member(key, prop, schema)}")
        out.append("}")
    else:
        members = [ts_type(s) for s in schema["oneOf"]] if "oneOf" in schema else [ts_type(schema)]
        if len(members) > 1:
            out.append(f"export type {name} =")
            out += [f"  | {m}" for m in members[:-1]] + [f"  | {members[-1]};"]
        else:
            out.append(f"export type {name} = {members[0]};")
    return out


def _pascal(const: str) -> str:
    return "".join(part.capitalize() for part in const.split("_"))


def _method_maps(methods: JSON) -> list[str]:
    out: list[str] = []
    groups = {
        "InkRequests": ("request", "clientToServer", "client → server requests"),
        "InkServerRequests": ("request", "serverToClient", "server → client requests"),
        "InkNotifications": ("notification", "serverToClient", "server → client notifications"),
        "InkClientNotifications": (
            "notification",
            "clientToServer",
            "client → server notifications",
        ),
    }
    for iface, (kind, direction, what) in groups.items():
        out += ["", f"/** Params{' and result' if kind == 'request' else ''} of the {what}. */"]
        out.append(f"export interface {iface} {{")
        for const, spec in methods.items():
            if (spec["kind"], spec["direction"]) != (kind, direction):
                continue
            shape = f"params: {ts_type(spec['params'])};"
            if kind == "request":
                shape += f" result: {ts_type(spec['result'])};"
            out.append(f"  [{const}]: {{ {shape} }};")
        out.append("}")
    return out


def render_typescript(schema: JSON) -> str:
    """The whole `protocol.generated.ts` for `schema`."""
    out = [
        "/**",
        f" * The ink-ls wire protocol as TypeScript, generated from {SCHEMA_PATH} by",
        " * scripts/gen-protocol. Do not edit: change ink_ls/protocol and regenerate.",
        " */",
        "",
        f"export const PROTOCOL_VERSION = {_literal(schema['version'])};",
        "",
        "// ink/* methods",
    ]
    for const, spec in schema["methods"].items():
        direction = (
            "client → server" if spec["direction"] == "clientToServer" else "server → client"
        )
        out += [f"/** {direction} {spec['kind']} */"]
        out.append(f"export const {const} = {_literal(spec['method']['const'])};")
    out += ["", "// standard LSP methods the clients handle or send"]
    out += [f"export const {k} = {_literal(v)};" for k, v in schema["lspMethods"].items()]
    out += ["", "// wire constants"]
    out += [
        f"export const {k} = {_literal(v)};"
        for k, v in schema["constants"].items()
        if k != "PROTOCOL_VERSION"
    ]
    out += ["", "/** JSON-RPC app error codes (`InkErrorCode` in ink_ls/protocol/errors.py). */"]
    out.append("export const InkErrorCode = {")
    out += [f"  {_pascal(k)}: {v}," for k, v in schema["errorCodes"].items()]
    out.append("} as const;")
    out += _method_maps(schema["methods"])
    for name, definition in schema["$defs"].items():
        out += ["", *_definition(name, definition)]
    return "\n".join(out) + "\n"

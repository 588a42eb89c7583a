"""The `ink/*` protocol as one JSON Schema document, built from the pydantic models.

Payload types go in `$defs`; a top-level `methods` map (keyed by the constant names of
`protocol.methods`) gives each method's name, direction, and params/result types, which a
schema of payloads alone would not hold. Error codes and wire constants ride along.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from ink_ls.core.tool import ToolKind
from ink_ls.protocol import methods
from ink_ls.protocol.catalog import METHODS, MethodSpec
from ink_ls.protocol.errors import InkErrorCode
from ink_ls.protocol.models import (
    ApprovalOptionId,
    SessionUpdateBody,
    ToolCallContent,
    ToolStatus,
    WireStopReason,
)

JSON = dict[str, Any]
REF = "#/$defs/{model}"
SCHEMA_PATH = "protocol.schema.json"
"""Where the exported schema lives, relative to the repository root."""

NAMED: dict[str, Any] = {
    "SessionUpdate": SessionUpdateBody,
    "ToolCallContent": ToolCallContent,
    "StopReason": WireStopReason,
    "ToolKind": ToolKind,
    "ToolStatus": ToolStatus,
    "ApprovalOptionId": ApprovalOptionId,
}
"""Unions and literals given a name of their own (pydantic would inline them)."""

LSP_METHODS = (
    "APPLY_EDIT",
    "SHOW_MESSAGE_REQUEST",
    "SHOW_MESSAGE",
    "LOG_MESSAGE",
    "SHOW_DOCUMENT",
    "PROGRESS_CREATE",
    "PROGRESS",
    "PROGRESS_CANCEL",
    "CANCEL_REQUEST",
    "DID_CHANGE_CONFIGURATION",
)
"""Standard LSP methods the editor plugins name (constants of `protocol.methods`)."""

CONSTANTS = ("PROTOCOL_VERSION", "REPLAY_TURN", "PROGRESS_TITLE")


def _modes(spec: MethodSpec) -> tuple[JsonSchemaMode, JsonSchemaMode]:
    """Validation for what ink-ls receives, serialization for what it sends."""
    if spec.direction == "clientToServer":
        return "validation", "serialization"
    return "serialization", "validation"


def _strip_titles(node: Any) -> Any:
    """Drop pydantic's generated titles (`Sessionid`); def names carry the names."""
    if isinstance(node, dict):
        return {
            k: _strip_titles(v)
            for k, v in node.items()
            if not (k == "title" and isinstance(v, str)) or k == "properties"
        }
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


def _omitted_when_none(definition: JSON) -> None:
    """A field whose default is None is left out when it has no value (`dump()` drops None):
    optional, and never null on the wire."""
    required = definition.get("required", [])
    for name, prop in definition.get("properties", {}).items():
        if "default" not in prop or prop["default"] is not None:
            continue
        del prop["default"]
        if name in required:
            required.remove(name)
        branches = [b for b in prop.pop("anyOf", []) if b != {"type": "null"}]
        if len(branches) == 1:
            prop.update(branches[0])
        elif branches:
            prop["anyOf"] = branches
    if not required:
        definition.pop("required", None)


def _bare(node: Any) -> Any:
    """A sub-schema without the keys that do not change its type."""
    if isinstance(node, dict):
        return {k: v for k, v in node.items() if k not in ("description", "default")}
    return node


def _hoist(node: Any, named: dict[str, JSON]) -> Any:
    """Replace inline copies of a named union or literal by a `$ref` to it."""
    if isinstance(node, dict):
        bare = _bare(node)
        for name, schema in named.items():
            if bare == schema:
                out: JSON = {"$ref": REF.format(model=name)}
                if "description" in node:
                    out["description"] = node["description"]
                return out
        return {k: _hoist(v, named) for k, v in node.items()}
    if isinstance(node, list):
        return [_hoist(v, named) for v in node]
    return node


def _payload_defs() -> tuple[dict[tuple[Any, JsonSchemaMode], JSON], JSON]:
    pairs: list[tuple[type[BaseModel], JsonSchemaMode]] = []
    for spec in METHODS:
        params_mode, result_mode = _modes(spec)
        pairs.append((spec.params, params_mode))
        if spec.result is not None:
            pairs.append((spec.result, result_mode))
    refs, top = models_json_schema(pairs, ref_template=REF)
    defs: JSON = top.get("$defs", {})
    split = [name for name in defs if name.endswith(("-Input", "-Output"))]
    if split:
        raise ValueError(f"models used in both directions differ by mode: {split}")
    return dict(refs), defs


def build_schema() -> JSON:
    """The whole protocol as one JSON Schema document (a plain dict, ready for `json.dumps`)."""
    refs, defs = _payload_defs()
    defs = _strip_titles(defs)
    for definition in defs.values():
        _omitted_when_none(definition)
    named = {name: _named_schema(tp) for name, tp in NAMED.items()}
    defs = {name: _hoist(d, named) for name, d in defs.items()}
    # a named union keeps its own members as they are (only nested copies become refs)
    defs.update({name: _hoist_inside(schema, name, named) for name, schema in named.items()})
    method_map: JSON = {}
    for spec in METHODS:
        params_mode, result_mode = _modes(spec)
        entry: JSON = {
            "method": {"const": spec.name},
            "direction": spec.direction,
            "kind": "notification" if spec.notification else "request",
            "params": refs[(spec.params, params_mode)],
        }
        if not spec.notification:
            entry["result"] = (
                refs[(spec.result, result_mode)] if spec.result is not None else {"type": "null"}
            )
        method_map[spec.const] = entry
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ink-ls protocol",
        "description": "The ink/* messages of ink-ls. Generated from ink_ls/protocol by "
        "scripts/gen-protocol; do not edit.",
        "version": methods.PROTOCOL_VERSION,
        "methods": method_map,
        "lspMethods": {const: getattr(methods, const) for const in LSP_METHODS},
        "constants": {const: getattr(methods, const) for const in CONSTANTS},
        "errorCodes": {code.name: int(code) for code in InkErrorCode},
        "$defs": dict(sorted(defs.items())),
    }


def _named_schema(tp: Any) -> JSON:
    """The schema of a union or literal as it stands inline (its members are in `$defs`)."""
    schema = _strip_titles(TypeAdapter(tp).json_schema(ref_template=REF))
    schema.pop("$defs", None)
    bare: JSON = _bare(schema)
    return bare


def _hoist_inside(schema: JSON, own: str, named: dict[str, JSON]) -> JSON:
    others = {k: v for k, v in named.items() if k != own}
    return {k: _hoist(v, others) for k, v in schema.items()}

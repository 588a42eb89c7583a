"""One walk from a JSON Schema node to a type expression, for any target language's syntax."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

JSON = dict[str, Any]


@dataclass(frozen=True)
class Syntax:
    """How a target language writes the types the protocol's schema uses."""

    name: Callable[[str], str]
    """A `$defs` name as a type name."""
    literal: Callable[[Any], str]
    union: str
    array: Callable[[str], str]
    """The array type of an item type (which may be a union)."""
    record: Callable[[str], str]
    """A string-keyed map of a value type."""
    any_value: str
    simple: Mapping[str, str]
    """JSON Schema `type` → the language's type (string, integer, number, boolean, null)."""
    inline_object: Callable[[JSON], str] | None = None
    """An object schema with its own properties, written in place (None: a record)."""


def scalars(*, integer: str, null: str) -> dict[str, str]:
    """The `simple` map of a language whose strings, numbers and booleans keep their names."""
    return {
        "string": "string",
        "number": "number",
        "boolean": "boolean",
        "integer": integer,
        "null": null,
    }


def type_of(schema: JSON, syntax: Syntax) -> str:
    """The type of one JSON Schema node in `syntax`."""
    if "$ref" in schema:
        return syntax.name(str(schema["$ref"]).rsplit("/", 1)[-1])
    if "const" in schema:
        return syntax.literal(schema["const"])
    if "enum" in schema:
        return syntax.union.join(syntax.literal(v) for v in schema["enum"])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return syntax.union.join(type_of(s, syntax) for s in schema[key])
    kind = schema.get("type")
    if kind == "array":
        return syntax.array(type_of(schema.get("items", {}), syntax))
    if kind == "object":
        if "properties" in schema and syntax.inline_object is not None:
            return syntax.inline_object(schema)
        extra = schema.get("additionalProperties", True)
        value = type_of(extra, syntax) if isinstance(extra, dict) else syntax.any_value
        return syntax.record(value)
    if isinstance(kind, str) and kind in syntax.simple:
        return syntax.simple[kind]
    return syntax.any_value

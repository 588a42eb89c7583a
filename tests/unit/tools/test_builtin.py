"""The built-in tool list: names, uniqueness and the schemas the model sees (pinned)."""

from __future__ import annotations

from typing import Any

import pytest

from ink_ls.core.tool import DuplicateToolError, ToolRegistry
from ink_ls.tools.builtin import builtin_tools
from ink_ls.tools.read import ReadTool


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_walk(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_walk(value))
    return found


def test_the_eight_tools_in_order() -> None:
    registry = ToolRegistry(builtin_tools())
    assert registry.names == ["read", "bash", "edit", "write", "grep", "find", "ls", "task"]
    safe = {t.name for t in registry if t.concurrency_safe}
    assert safe == {"read", "grep", "find", "ls", "task"}


def test_registering_a_builtin_twice_is_refused() -> None:
    registry = ToolRegistry(builtin_tools())
    with pytest.raises(DuplicateToolError, match='a tool named "read" is already registered'):
        registry.register(ReadTool())


@pytest.mark.parametrize("tool", builtin_tools(), ids=lambda t: t.name)
def test_schemas_are_closed_untitled_and_described(tool: Any) -> None:
    schema = tool.parameters()
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert all("title" not in node for node in _walk(schema))
    for name, prop in schema["properties"].items():
        assert prop.get("description"), f"{tool.name}.{name} has no description"
    assert tool.description.strip()


def test_read_schema_is_pinned() -> None:
    assert ReadTool().parameters() == {
        "additionalProperties": False,
        "properties": {
            "path": {
                "description": "Path of the file to read, relative to the workspace root or "
                "absolute.",
                "type": "string",
            },
            "offset": {
                "anyOf": [{"minimum": 1, "type": "integer"}, {"type": "null"}],
                "default": None,
                "description": "Line number to start reading from (1-indexed). Use it to "
                "continue a cut read.",
            },
            "limit": {
                "anyOf": [{"minimum": 1, "type": "integer"}, {"type": "null"}],
                "default": None,
                "description": "Maximum number of lines to read (at most 2000 are returned per "
                "call).",
            },
        },
        "required": ["path"],
        "type": "object",
    }

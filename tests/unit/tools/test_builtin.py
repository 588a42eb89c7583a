"""The built-in tool list: names, uniqueness and the schemas the model sees (pinned)."""

from __future__ import annotations

from pathlib import Path
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
    assert registry.names == [
        "read",
        "bash",
        "edit",
        "write",
        "grep",
        "find",
        "ls",
        "task",
        "todo_write",
    ]
    safe = {t.name for t in registry if t.concurrency_safe}
    assert safe == {"read", "grep", "find", "ls", "task", "todo_write"}


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


def test_each_tool_titles_and_kinds_its_calls() -> None:
    tools = ToolRegistry(builtin_tools())
    cwd = Path("/ws")

    def title(name: str, args: dict[str, object]) -> str:
        tool = tools.get(name)
        assert tool is not None
        return tool.title(args, cwd)

    assert title("read", {"path": "/ws/src/a.py"}) == "read src/a.py"
    assert title("bash", {"command": "npm test\nmore"}) == "bash: npm test"
    assert title("bash", {"command": 3}) == "bash"
    assert title("grep", {"pattern": "TODO", "path": "src"}) == 'grep "TODO" src'
    assert title("find", {"pattern": "*.py"}) == "find *.py"
    assert title("ls", {}) == "ls ."
    assert title("edit", {"path": "/elsewhere/x"}) == "edit /elsewhere/x"
    assert title("task", {"prompt": "x" * 100}) == "task: " + "x" * 59 + "…"
    done = [{"content": "a", "status": "completed"}, {"content": "b"}]
    assert title("todo_write", {"todos": done}) == "to-do list (1/2 done)"
    assert title("todo_write", {"todos": 3}) == "to-do list"
    assert {t.name: t.kind for t in tools} == {
        "read": "read",
        "bash": "execute",
        "edit": "edit",
        "write": "edit",
        "grep": "search",
        "find": "search",
        "ls": "read",
        "task": "think",
        "todo_write": "think",
    }

"""Tool schemas as requests see them: one shared entry per schema for every registry of the
process, the same content `parameters()` gives, and bash's entry following its sandbox."""

from __future__ import annotations

import json
from typing import Any

from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import Tool, ToolContext, ToolParams, ToolRegistry, ToolResult
from ink_ls.tools.bash import BashTool
from ink_ls.tools.builtin import builtin_tools
from ink_ls.tools.sandbox import SandboxSettings


def test_every_registry_of_the_process_shares_each_entry() -> None:
    first, second = ToolRegistry(builtin_tools()), ToolRegistry(builtin_tools())
    for a, b, tool in zip(first.schemas(), second.schemas(), first, strict=True):
        assert a is b  # built once, not per request or per session
        assert a == {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters(),
        }


def test_bash_shows_the_sandbox_it_runs_in_from_the_next_request() -> None:
    bash = BashTool()
    registry = ToolRegistry([bash])
    (plain,) = registry.schemas()
    assert "sandbox" not in json.dumps(plain["parameters"])
    bash.use_sandbox(SandboxSettings(enabled=True))
    (boxed,) = registry.schemas()
    assert boxed["parameters"] == bash.parameters() != plain["parameters"]
    bash.use_sandbox(None)
    assert registry.schemas()[0] is plain


class OwnParams(ToolParams):
    pass


class OwnSchema(Tool[OwnParams]):
    """A tool with a `parameters` of its own (e.g. built at run time)."""

    name = "own"
    description = "has its own schema"
    params_model = OwnParams

    def __init__(self) -> None:
        self.schema_value: dict[str, Any] = {"type": "object", "properties": {}}

    def parameters(self) -> dict[str, Any]:
        return dict(self.schema_value)

    async def execute(self, args: OwnParams, signal: CancelSignal, ctx: ToolContext) -> ToolResult:
        return ToolResult("ok")


def test_a_tool_with_its_own_parameters_is_asked_each_time() -> None:
    tool = OwnSchema()
    registry = ToolRegistry([tool])
    assert registry.schemas()[0]["parameters"] == {"type": "object", "properties": {}}
    tool.schema_value = {"type": "object", "properties": {"x": {"type": "string"}}}
    assert registry.schemas()[0]["parameters"]["properties"] == {"x": {"type": "string"}}

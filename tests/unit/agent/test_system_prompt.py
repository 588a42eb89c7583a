"""The system prompt names the workspace root, the tools and the concurrency rule."""

from __future__ import annotations

from pathlib import Path

from ink_ls.agent.prompt import build_system_prompt
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import Tool, ToolContext, ToolParams, ToolRegistry, ToolResult


class P(ToolParams):
    path: str


def make(tool_name: str, safe: bool, desc: str) -> Tool[P]:
    class T(Tool[P]):
        name = tool_name
        description = desc
        params_model = P
        concurrency_safe = safe

        async def execute(self, args: P, signal: CancelSignal, context: ToolContext) -> ToolResult:
            return ToolResult()

    return T()


def test_prompt_states_root_tools_and_which_calls_run_together(tmp_path: Path) -> None:
    tools = ToolRegistry(
        [
            make("read", True, "Read a file.\nLines are numbered.\n\nMore details here."),
            make("bash", False, "Run a command."),
            make("grep", True, "Search contents."),
            make("edit", False, "Edit a file."),
        ]
    )
    prompt = build_system_prompt(tmp_path, tools)
    assert f"Workspace root: {tmp_path}\n" in prompt
    assert "- read: Read a file. Lines are numbered.\n- bash: Run a command.\n" in prompt
    assert "More details" not in prompt
    assert (
        "Independent calls of read and grep in one reply run concurrently: when you need "
        "several of them"
    ) in prompt
    assert (
        "Calls of bash and edit keep the order you give them wherever they could "
        "interfere: a call that may touch anything (a command) runs alone"
    ) in prompt
    assert build_system_prompt(tmp_path, tools) == prompt  # deterministic


def test_prompt_without_tools(tmp_path: Path) -> None:
    prompt = build_system_prompt(tmp_path, ToolRegistry())
    assert "You have no tools in this run" in prompt
    assert "run concurrently" not in prompt

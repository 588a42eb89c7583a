"""A tool result is validated where it is made: a wrong display (or output, or content) is an
error result for that call, the model reads why, and the turn goes on to its end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_fakes import KeyParams, Recorder, ScriptedModel, call, reply

from ink_ls.agent.loop import Agent, AgentOptions
from ink_ls.core.messages import ToolResultMessage
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import Tool, ToolContext, ToolRegistry, ToolResult


class Sloppy(Tool[KeyParams]):
    """Returns whatever its key names: a string display, a dict, output that is not text."""

    name = "sloppy"
    description = "Returns a broken result."
    params_model = KeyParams

    async def execute(self, args: KeyParams, signal: CancelSignal, context: ToolContext) -> Any:
        if args.key == "display":
            return ToolResult("fine", display="a string is not a display")  # type: ignore[arg-type]
        if args.key == "dict":
            return {"output": "not a ToolResult"}
        return ToolResult(42)  # type: ignore[arg-type]


async def run(key: str) -> tuple[str, str, Recorder]:
    model = ScriptedModel([reply("", call("sloppy", key, id="c1")), reply("all done")])
    rec = Recorder()
    agent = Agent(model, ToolRegistry([Sloppy()]), AgentOptions(cwd=Path("/tmp")), on_event=rec)
    result = await asyncio.wait_for(agent.run("go"), 10)
    message = agent.history[-2]
    assert isinstance(message, ToolResultMessage)
    entry = message.results[0]
    assert entry.is_error
    text = entry.content[0].text  # type: ignore[union-attr]
    return result.stop_reason + "|" + result.text, text, rec


async def test_a_string_display_is_an_error_for_that_call_not_a_hung_turn() -> None:
    outcome, text, rec = await run("display")
    assert outcome == "completed|all done"
    assert text == (
        "Error: tool sloppy returned an invalid result (its display is str, not one of "
        "DiffDisplay, CommandDisplay, TaskDisplay or None)."
    )
    assert rec.of("tool_end") == ["c1"]


async def test_a_result_that_is_not_a_tool_result_is_an_error() -> None:
    _, text, _ = await run("dict")
    assert (
        text
        == "Error: tool sloppy returned an invalid result (it returned dict, not a ToolResult)."
    )


async def test_output_that_is_not_text_is_an_error() -> None:
    _, text, _ = await run("int")
    assert text == "Error: tool sloppy returned an invalid result (its output is int, not text)."

"""One call through the pipeline: every refusal and failure with its exact text."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from agent_fakes import CWD, Recorder
from pydantic import ConfigDict, Field

from ink_ls.agent import pipeline
from ink_ls.agent.gate import GateBlock, GateRequest
from ink_ls.agent.pipeline import CallResult
from ink_ls.agent.scheduler import BatchEnv, run_batch
from ink_ls.core.messages import ImageBlock, TextBlock, ToolCall
from ink_ls.core.signal import CancelController, CancelledError, CancelSignal
from ink_ls.core.tool import (
    ChangeRejectedError,
    DiffDisplay,
    TaskDisplay,
    Tool,
    ToolContext,
    ToolParams,
    ToolRegistry,
    ToolResult,
    aborted_result,
)

SHOWN = DiffDisplay(Path("/ws/a.txt"), "a", "b", "-a\n+b")


class ReadParams(ToolParams):
    path: str = Field(description="file")
    offset: int | None = Field(default=None, ge=1, description="first line")


class Edit(ToolParams):
    model_config = ConfigDict(populate_by_name=True)
    old_text: str = Field(alias="oldText", description="old")
    new_text: str = Field(alias="newText", description="new")


class EditParams(ToolParams):
    path: str = Field(description="file")
    edits: list[Edit] = Field(description="edits")


class Many(ToolParams):
    a: int
    b: int
    c: int
    d: int
    e: int
    f: int
    g: int


class Pick(ToolParams):
    values: list[int | str] = Field(description="mixed")
    edit: Edit | EditParams | None = Field(default=None, description="a union of models")


class PickTool(Tool[Pick]):
    name = "pick"
    description = "unions"
    params_model = Pick

    async def execute(self, args: Pick, signal: CancelSignal, context: ToolContext) -> ToolResult:
        return ToolResult(output="ok")


class ReadTool(Tool[ReadParams]):
    name = "read"
    description = "reads"
    params_model = ReadParams
    concurrency_safe = True

    def __init__(self) -> None:
        self.seen: list[tuple[ReadParams, str]] = []

    async def execute(
        self, args: ReadParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        self.seen.append((args, context.tool_call_id))
        if args.path == "boom":
            raise ValueError("disk on fire")
        if args.path == "bare":
            raise RuntimeError()
        if args.path == "refused":
            raise ChangeRejectedError("user", "not this file")
        if args.path == "refused-silently":
            raise ChangeRejectedError("policy")
        if args.path == "image":
            return ToolResult(
                output="ignored when content is given",
                content=[ImageBlock(data="AAAA", mime_type="image/png")],
                display=TaskDisplay("a picture"),
            )
        if args.path == "soft":
            return ToolResult(output="no such file", is_error=True)
        if args.path == "stopped":
            raise CancelledError("cancelled by the user")
        return ToolResult(output=f"text of {args.path}", display=SHOWN)


class EditTool(Tool[EditParams]):
    name = "edit"
    description = "edits"
    params_model = EditParams

    async def execute(
        self, args: EditParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        return ToolResult(output=f"{len(args.edits)} edits to {args.path}")


class ManyTool(Tool[Many]):
    name = "many"
    description = "seven ints"
    params_model = Many

    async def execute(self, args: Many, signal: CancelSignal, context: ToolContext) -> ToolResult:
        return ToolResult(output="ok")


def registry() -> ToolRegistry:
    return ToolRegistry([ReadTool(), EditTool(), ManyTool()])


async def one(name: str, arguments: str, **env: object) -> CallResult:
    tools = env.pop("tools", None) or registry()
    assert isinstance(tools, ToolRegistry)
    results = await run_batch(
        [ToolCall(id="c1", name=name, arguments=arguments)],
        BatchEnv(tools=tools, cwd=CWD, **env),  # type: ignore[arg-type]
    )
    assert len(results) == 1 and results[0].tool_call_id == "c1"
    return results[0]


def text(result: CallResult) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], TextBlock)
    return result.content[0].text


async def test_success_passes_output_and_display_but_history_has_neither_display_nor_timing() -> (
    None
):
    r = await one("read", '{"path": "a.txt"}')
    assert (text(r), r.is_error, r.display) == ("text of a.txt", False, SHOWN)
    assert r.duration_ms is not None and r.duration_ms >= 0
    entry = r.entry().model_dump()
    assert entry == {
        "tool_call_id": "c1",
        "tool_name": "read",
        "content": [{"type": "text", "text": "text of a.txt"}],
        "is_error": False,
    }


async def test_content_wins_over_output() -> None:
    r = await one("read", '{"path": "image"}')
    assert r.content == [ImageBlock(data="AAAA", mime_type="image/png")]
    assert r.display == TaskDisplay("a picture")


async def test_tool_reported_error_passes_through() -> None:
    r = await one("read", '{"path": "soft"}')
    assert (text(r), r.is_error) == ("no such file", True)


async def test_unknown_tool_names_it_and_lists_the_available_ones() -> None:
    r = await one("raed", '{"path": "a"}')
    assert text(r) == 'Error: unknown tool "raed". Available tools: read, edit, many.'
    assert r.is_error


@pytest.mark.parametrize(
    ("raw", "shown"),
    [("[1, 2]", "[1, 2]"), ("null", "null"), ('"a.txt"', '"a.txt"'), ("42", "42")],
)
async def test_arguments_must_be_a_json_object(raw: str, shown: str) -> None:
    r = await one("read", raw)
    assert text(r) == f"Error: tool arguments must be a JSON object, got: {shown}"
    assert r.is_error


async def test_non_object_arguments_are_shown_cut_at_200_characters() -> None:
    raw = json.dumps(["x" * 500])
    r = await one("read", raw)
    assert text(r) == "Error: tool arguments must be a JSON object, got: " + raw[:200]


async def test_schema_failure_uses_json_pointers() -> None:
    r = await one("read", '{"path": 123}')
    assert text(r) == (
        "Error: invalid arguments for read — /path: Input should be a valid string."
        " Fix the arguments and retry."
    )
    assert r.is_error


async def test_schema_failure_pointer_uses_alias_names_inside_arrays() -> None:
    r = await one("edit", '{"path": "a", "edits": [{"newText": "x"}]}')
    assert text(r) == (
        "Error: invalid arguments for edit — /edits/0/oldText: Field required."
        " Fix the arguments and retry."
    )


async def test_unknown_keys_are_refused() -> None:
    r = await one("read", '{"path": "a", "limit": 3}')
    assert text(r) == (
        "Error: invalid arguments for read — /limit: Extra inputs are not permitted."
        " Fix the arguments and retry."
    )


async def test_at_most_five_errors_joined_by_semicolons() -> None:
    r = await one("many", "{}")
    assert text(r) == (
        "Error: invalid arguments for many — /a: Field required; /b: Field required; "
        "/c: Field required; /d: Field required; /e: Field required."
        " Fix the arguments and retry."
    )


async def test_unparseable_json_is_a_validation_error_at_the_root() -> None:
    r = await one("read", '{"path": "a.txt"')
    assert text(r) == (
        "Error: invalid arguments for read — (root): arguments are not valid JSON: "
        "Expecting ',' delimiter (line 1, column 17). Fix the arguments and retry."
    )
    assert r.is_error


async def test_empty_arguments_count_as_an_empty_object() -> None:
    r = await one("read", "")
    assert text(r) == (
        "Error: invalid arguments for read — /path: Field required. Fix the arguments and retry."
    )


async def test_tool_exception_becomes_threw_error() -> None:
    r = await one("read", '{"path": "boom"}')
    assert (text(r), r.is_error) == ("Error: tool read threw: disk on fire", True)
    r = await one("read", '{"path": "bare"}')
    assert text(r) == "Error: tool read threw: RuntimeError"


async def test_change_rejected_by_the_editor_is_a_blocked_result() -> None:
    r = await one("read", '{"path": "refused"}')
    assert (text(r), r.is_error) == ('Tool "read" blocked by user: not this file', True)
    r = await one("read", '{"path": "refused-silently"}')
    assert text(r) == 'Tool "read" blocked by policy: no reason given'


async def test_gate_sees_validated_args_and_its_block_is_reported() -> None:
    tools = registry()
    seen: list[GateRequest] = []

    async def gate(req: GateRequest, signal: CancelSignal) -> GateBlock | None:
        seen.append(req)
        return GateBlock("policy", "reads of secrets are not allowed")

    r = await one("read", '{"path": "a.txt"}', tools=tools, gate=gate)
    assert (text(r), r.is_error) == (
        'Tool "read" blocked by policy: reads of secrets are not allowed',
        True,
    )
    assert seen[0].tool_call_id == "c1" and seen[0].args == ReadParams(path="a.txt")
    read = tools.get("read")
    assert isinstance(read, ReadTool) and read.seen == []


async def test_gate_block_without_reason() -> None:
    async def gate(req: GateRequest, signal: CancelSignal) -> GateBlock | None:
        return GateBlock("user")

    r = await one("read", '{"path": "a.txt"}', gate=gate)
    assert text(r) == 'Tool "read" blocked by user: no reason given'


@pytest.mark.parametrize(
    ("source", "reason", "expected"),
    [
        ("", "outside the workspace", 'Tool "read" was blocked: outside the workspace'),
        ("  ", None, 'Tool "read" was blocked: no reason given'),
        ("policy", "  ", 'Tool "read" blocked by policy: no reason given'),
    ],
)
async def test_gate_block_without_a_source_reads_naturally(
    source: str, reason: str | None, expected: str
) -> None:
    async def gate(req: GateRequest, signal: CancelSignal) -> GateBlock | None:
        return GateBlock(source, reason)

    r = await one("read", '{"path": "a.txt"}', gate=gate)
    assert (text(r), r.is_error) == (expected, True)


async def test_a_failing_gate_blocks_instead_of_letting_the_call_through() -> None:
    async def gate(req: GateRequest, signal: CancelSignal) -> GateBlock | None:
        raise OSError("editor went away")

    r = await one("read", '{"path": "a.txt"}', gate=gate)
    assert text(r) == 'Tool "read" blocked by gate: the approval check failed: editor went away'


async def test_cancel_while_the_gate_waits_ends_the_wait_with_a_blocked_result() -> None:
    asked = asyncio.Event()
    gate_cancelled = asyncio.Event()

    async def gate(req: GateRequest, signal: CancelSignal) -> GateBlock | None:
        asked.set()
        try:
            await asyncio.Event().wait()  # an approval nobody answers, ignoring the signal
        except asyncio.CancelledError:
            gate_cancelled.set()
            raise
        return None

    tools = ToolRegistry([ReadTool(), type("B", (ReadTool,), {"name": "bash"})()])
    ctrl = CancelController()
    rec = Recorder()
    task = asyncio.ensure_future(
        run_batch(
            [ToolCall(id="b1", name="bash", arguments='{"path": "x"}')],
            BatchEnv(tools=tools, cwd=CWD, gate=gate, on_event=rec),
            ctrl.signal,
        )
    )
    await asyncio.wait_for(asked.wait(), 5)
    ctrl.cancel("user pressed stop")
    results = await asyncio.wait_for(task, 1)
    assert text(results[0]) == 'Tool "bash" blocked by user: cancelled while waiting for approval'
    assert gate_cancelled.is_set()
    assert rec.trace() == ["tool_start:b1", "tool_end:b1"]


async def test_context_carries_the_call_id_not_a_model_argument() -> None:
    tools = registry()
    await one("read", '{"path": "p"}', tools=tools)
    read = tools.get("read")
    assert isinstance(read, ReadTool) and read.seen[0][1] == "c1"


def test_schema_sent_to_the_model_is_derived_without_titles() -> None:
    assert ReadTool().parameters() == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file"},
            "offset": {
                "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                "default": None,
                "description": "first line",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    }


def test_abandoned_text_with_the_default_grace_matches_the_issue() -> None:
    r = pipeline.abandoned_result(ToolCall(id="c9", name="bash", arguments="{}"), 10.0)
    assert text(r) == (
        "Tool bash did not respond to the interrupt within 10s — result abandoned;"
        " the underlying process may still be running."
    )
    assert r.is_error and r.tool_call_id == "c9"


async def test_pointers_leave_out_pydantic_union_tags() -> None:
    tools = ToolRegistry([PickTool()])
    r = await one("pick", '{"values": [1, 2.5]}', tools=tools)
    assert text(r) == (
        "Error: invalid arguments for pick — "
        "/values/1: Input should be a valid integer, got a number with a fractional part; "
        "/values/1: Input should be a valid string. Fix the arguments and retry."
    )
    r = await one("pick", '{"values": [], "edit": {"newText": "x"}}', tools=tools)
    assert text(r) == (
        "Error: invalid arguments for pick — /edit/oldText: Field required; "
        "/edit/path: Field required; /edit/edits: Field required; "
        "/edit/newText: Extra inputs are not permitted. Fix the arguments and retry."
    )


async def test_a_cancel_escaping_a_tool_reads_like_the_tools_own_aborted_result() -> None:
    r = await one("read", '{"path": "stopped"}')
    assert (text(r), r.is_error) == ("Error: read aborted by user", True)
    assert aborted_result("edit", "the file was not changed").output == (
        "Error: edit aborted by user; the file was not changed."
    )

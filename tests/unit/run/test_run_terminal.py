"""The terminal side of `ink-ls run`: the live view's lines, approval answers, the diff
writer, and the JSON printer."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from ink_ls.agent.approval import ApprovalGate, ApprovalQuestion
from ink_ls.agent.events import (
    MessageEndEvent,
    RunEndEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolEndEvent,
    ToolRunningEvent,
    ToolSettledEvent,
    WarningEvent,
)
from ink_ls.agent.writes import PolicyWriter
from ink_ls.core.messages import AssistantMessage, TextBlock, Usage
from ink_ls.core.signal import NEVER, CancelController, CancelSignal
from ink_ls.core.tool import ChangeRejectedError
from ink_ls.run.jsonout import JsonPrinter
from ink_ls.run.terminal import TerminalAsker, TerminalChanges, TerminalPrompter, parse_answer
from ink_ls.run.view import TerminalView
from tests.fakes.events import started


def plain_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=100, color_system=None), out


def test_the_view_prints_text_and_each_call_with_state_and_duration() -> None:
    console, out = plain_console()
    view = TerminalView(console)
    view(TextDeltaEvent(text="Looking"))
    view(MessageEndEvent(message=AssistantMessage(text="Looking.", stop_reason="tool_use")))
    view(started(tool_call_id="a", tool_name="read", arguments={"path": "README.md"}))
    view(started(tool_call_id="b", tool_name="bash", arguments={"command": "false\nx"}))
    view(ToolRunningEvent(tool_call_id="a", tool_name="read"))
    view(ToolSettledEvent(tool_call_id="a", tool_name="read", is_error=False, duration_ms=12.4))
    view(
        ToolEndEvent(
            tool_call_id="a",
            tool_name="read",
            content=[TextBlock(text="x")],
            is_error=False,
            duration_ms=12.4,
        )
    )
    view(ToolRunningEvent(tool_call_id="b", tool_name="bash"))
    view(ToolSettledEvent(tool_call_id="b", tool_name="bash", is_error=True, duration_ms=1530))
    view(
        ToolEndEvent(
            tool_call_id="b",
            tool_name="bash",
            is_error=True,
            content=[TextBlock(text="\nError: command timed out after 1s\nmore")],
        )
    )
    view(RunEndEvent(stop_reason="completed", usage=Usage()))
    assert out.getvalue() == (
        "Looking.\n"
        "✓ read README.md  12 ms\n"
        "✗ bash: false  1.5 s\n"
        "  Error: command timed out after 1s\n"
    )


def test_the_live_region_shows_queued_and_running_calls() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80, color_system=None)
    view = TerminalView(console)
    try:
        view(TextDeltaEvent(text="partial answer"))
        view(started(tool_call_id="a", tool_name="grep", arguments={"pattern": "TODO"}))
        view(started(tool_call_id="b", tool_name="ls", arguments={}))
        view(ToolRunningEvent(tool_call_id="a", tool_name="grep"))
        region = Console(file=io.StringIO(), width=80, color_system=None)
        with region.capture() as cap:
            region.print(view)
        lines = [ln.rstrip() for ln in cap.get().splitlines()]
        assert lines[0] == "partial answer"
        spinner, *running = lines[1].split()
        assert spinner in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏" and running[:2] == ["grep", '"TODO"']
        assert running[-1] == "ms"  # elapsed time of the running call
        assert lines[2].split() == ["·", "ls", ".", "queued"]
    finally:
        view.close()


@pytest.mark.parametrize(
    ("typed", "choice"),
    [
        ("y\n", "allow_once"),
        ("YES\n", "allow_once"),
        ("a\n", "allow_always"),
        ("p\n", "allow_project"),
        ("project\n", "allow_project"),
        ("n\n", "reject"),
        ("\n", "reject"),
        ("maybe\n", "reject"),
        (None, None),
    ],
)
def test_answers(typed: str | None, choice: str | None) -> None:
    assert parse_answer(typed) == choice


class Typist:
    def __init__(self, *lines: str | None) -> None:
        self.lines = list(lines)

    async def __call__(self, signal: CancelSignal) -> str | None:
        return self.lines.pop(0)


async def test_the_prompter_shows_the_question_and_returns_the_choice() -> None:
    console, out = plain_console()
    prompter = TerminalPrompter(TerminalAsker(console, Typist("y\n")))
    question = ApprovalQuestion(
        tool_name="bash",
        tool_call_id="c1",
        kind="command",
        title="Run command: npm test",
        detail='{"command": "npm test"}',
    )
    assert await prompter(question, NEVER) == "allow_once"
    assert out.getvalue() == "Run command: npm test  [y]es / [a]lways this session / [N]o: "


async def test_the_project_key_is_offered_with_the_rules_it_saves() -> None:
    console, out = plain_console()
    prompter = TerminalPrompter(TerminalAsker(console, Typist("p\n")))
    question = ApprovalQuestion(
        tool_name="bash",
        tool_call_id="c1",
        kind="command",
        title="Run command: npm test",
        detail='{"command": "npm test"}',
        project_rules=("Bash(npm test)",),
    )
    assert await prompter(question, NEVER) == "allow_project"
    assert out.getvalue() == (
        "  [p] saves Bash(npm test) to .ink/settings.local.json\n"
        "Run command: npm test  [y]es / [a]lways this session / [p]roject: always in this "
        "project / [N]o: "
    )


async def test_a_cancelled_prompt_asks_nothing() -> None:
    console, out = plain_console()
    controller = CancelController()
    controller.cancel()
    asker = TerminalAsker(console, Typist("y\n"))
    assert await asker.ask("Run?", None, controller.signal) is None
    assert out.getvalue() == ""


async def test_the_writer_shows_the_diff_and_writes_only_when_approved(tmp_path: Path) -> None:
    console, out = plain_console()
    target = tmp_path / "src" / "app.py"
    target.parent.mkdir()
    target.write_text("a = 1\n")
    asker = TerminalAsker(console, Typist("n\n", "a\n"))
    writer = PolicyWriter(ApprovalGate("ask"), TerminalChanges(asker, tmp_path))
    with pytest.raises(ChangeRejectedError) as info:
        await writer.write_text(
            target, "a = 2\n", old_text="a = 1\n", tool_name="edit", tool_call_id="c1", signal=NEVER
        )
    assert (info.value.source, info.value.reason) == ("user", "the user rejected this change")
    assert target.read_text() == "a = 1\n"
    shown = out.getvalue()
    assert "-1 a = 1" in shown and "+1 a = 2" in shown and "Change src/app.py?" in shown
    await writer.write_text(
        target, "a = 3\n", old_text="a = 1\n", tool_name="edit", tool_call_id="c2", signal=NEVER
    )
    assert target.read_text() == "a = 3\n"
    # "always" holds for the rest of the run: no more questions about that tool's changes
    await writer.write_text(
        tmp_path / "new.txt",
        "hi\n",
        old_text=None,
        tool_name="edit",
        tool_call_id="c3",
        signal=NEVER,
    )
    assert (tmp_path / "new.txt").read_text() == "hi\n"
    assert out.getvalue().count("[y]es") == 2


def test_json_printer_writes_one_line_per_event_and_the_session_id_at_the_end() -> None:
    out = io.StringIO()
    printer = JsonPrinter(out, session_id="s-1")
    printer(TextDeltaEvent(text="hé"))
    printer(RunEndEvent(stop_reason="completed", usage=Usage(input_tokens=3)))
    first, last = [json.loads(line) for line in out.getvalue().splitlines()]
    assert first == {"type": "text_delta", "text": "hé"}
    assert last == {
        "type": "run_end",
        "stop_reason": "completed",
        "text": "",
        "error": None,
        "usage": {"input_tokens": 3, "output_tokens": 0, "cache_read_tokens": 0},
        "session_id": "s-1",
    }


def test_sub_agent_calls_are_printed_indented_after_their_task() -> None:
    console, out = plain_console()
    view = TerminalView(console)
    view(
        started(
            tool_call_id="t",
            tool_name="task",
            arguments={"prompt": "look", "description": "survey"},
        )
    )
    view(started(tool_call_id="r", tool_name="read", arguments={"path": "b.py"}))
    view(ToolRunningEvent(tool_call_id="t", tool_name="task"))
    view(TextDeltaEvent(text="sub-agent musing", parent_tool_call_id="t"))
    for cid, args in (
        ("t/c1", {"path": "a.py"}),
        ("t/c2", {"command": "nope"}),
        ("t/c3", {"path": "never.py"}),
    ):
        view(
            started(
                tool_call_id=cid,
                tool_name="bash" if cid == "t/c2" else "read",
                arguments=args,
                parent_tool_call_id="t",
            )
        )
    view(ToolRunningEvent(tool_call_id="t/c1", tool_name="read", parent_tool_call_id="t"))
    view(
        ToolEndEvent(
            tool_call_id="t/c1",
            tool_name="read",
            content=[TextBlock(text="x")],
            is_error=False,
            duration_ms=3,
            parent_tool_call_id="t",
        )
    )
    view(
        ToolEndEvent(
            tool_call_id="t/c2",
            tool_name="bash",
            is_error=True,
            duration_ms=40,
            content=[TextBlock(text="Error: exit 1")],
            parent_tool_call_id="t",
        )
    )
    assert out.getvalue() == ""  # nothing printed before the task ends
    view(
        ToolEndEvent(
            tool_call_id="t",
            tool_name="task",
            content=[TextBlock(text="ok")],
            is_error=False,
            duration_ms=2500,
        )
    )
    view(
        ToolEndEvent(
            tool_call_id="r",
            tool_name="read",
            content=[TextBlock(text="y")],
            is_error=False,
            duration_ms=1,
        )
    )
    view(RunEndEvent(stop_reason="completed", usage=Usage()))
    assert out.getvalue() == (
        "✓ task: survey  2.5 s\n"
        "  ✓ read a.py  3 ms\n"
        "  ✗ bash: nope  40 ms\n"
        "    Error: exit 1\n"
        "  · read never.py  did not finish\n"
        "✓ read b.py  1 ms\n"
    )


def test_the_live_region_shows_sub_agent_calls_indented_under_their_task() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80, color_system=None)
    view = TerminalView(console)
    try:
        view(started(tool_call_id="t", tool_name="task", arguments={"prompt": "look"}))
        view(started(tool_call_id="r", tool_name="ls", arguments={}))
        view(ToolRunningEvent(tool_call_id="t", tool_name="task"))
        view(TextDeltaEvent(text="sub-agent musing", parent_tool_call_id="t"))
        view(
            started(
                tool_call_id="t/c1",
                tool_name="grep",
                arguments={"pattern": "TODO"},
                parent_tool_call_id="t",
            )
        )
        view(
            started(
                tool_call_id="t/c2",
                tool_name="find",
                arguments={"pattern": "*.py"},
                parent_tool_call_id="t",
            )
        )
        view(
            ToolEndEvent(
                tool_call_id="t/c1",
                tool_name="grep",
                content=[TextBlock(text="x")],
                is_error=False,
                duration_ms=7,
                parent_tool_call_id="t",
            )
        )
        region = Console(file=io.StringIO(), width=80, color_system=None)
        with region.capture() as cap:
            region.print(view)
        lines = [ln.rstrip() for ln in cap.get().splitlines()]
        assert len(lines) == 4  # no sub-agent text
        assert lines[0].split()[1:3] == ["task:", "look"]
        assert lines[1] == '  ✓ grep "TODO" 7 ms'
        assert lines[2].split() == ["·", "find", "*.py", "queued"]
        assert lines[3].split() == ["·", "ls", ".", "queued"]
        assert out.getvalue().count("musing") == 0
    finally:
        view.close()


def test_json_lines_of_sub_agent_calls_carry_their_task() -> None:
    out = io.StringIO()
    printer = JsonPrinter(out, session_id="s-1")
    printer(ToolRunningEvent(tool_call_id="t/c1", tool_name="read", parent_tool_call_id="t"))
    printer(ToolRunningEvent(tool_call_id="t", tool_name="task"))
    printer(TextDeltaEvent(text="hm", parent_tool_call_id="t"))
    assert [json.loads(line) for line in out.getvalue().splitlines()] == [
        {
            "type": "tool_running",
            "tool_call_id": "t/c1",
            "tool_name": "read",
            "parent_tool_call_id": "t",
        },
        {"type": "tool_running", "tool_call_id": "t", "tool_name": "task"},
        {"type": "text_delta", "text": "hm", "parent_tool_call_id": "t"},
    ]


def test_reasoning_and_warnings_go_to_stderr_when_stdout_is_not_a_terminal() -> None:
    console, out = plain_console()
    err, err_out = plain_console()
    view = TerminalView(console, err=err)
    view(ThinkingDeltaEvent(text="Read the notes "))
    view(ThinkingDeltaEvent(text="first."))
    view(WarningEvent(message="the prompt is larger than the window"))
    view(TextDeltaEvent(text="Ship on Friday."))
    view(
        MessageEndEvent(
            message=AssistantMessage(text="Ship on Friday.", thinking="Read the notes first.")
        )
    )
    view.close()
    assert out.getvalue() == "Ship on Friday.\n"  # a pipe gets the answer only
    assert err_out.getvalue() == (
        "warning: the prompt is larger than the window\nthinking: Read the notes first.\n"
    )


def test_in_a_terminal_the_reasoning_is_dim_above_the_answer() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100, color_system="standard")
    err, _ = plain_console()
    view = TerminalView(console, err=err)
    view(ThinkingDeltaEvent(text="Read the notes first."))
    view(
        MessageEndEvent(
            message=AssistantMessage(text="Ship on Friday.", thinking="Read the notes first.")
        )
    )
    view.close()
    shown = out.getvalue()
    assert "\x1b[2;3mthinking: Read the notes first.\x1b[0m" in shown  # dim italic
    assert shown.index("thinking:") < shown.index("Ship on Friday.")

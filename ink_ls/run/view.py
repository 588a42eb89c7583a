"""The live terminal view of `ink-ls run`: streamed text, each tool call with its state
(queued, running, done, failed) and duration, a spinner while a call runs; the model's
reasoning in dim text above its answer, warnings in yellow on stderr.

Finished items are printed once, in order, above a small live region that shows only what is
still in flight. On a console that is not a terminal nothing is animated: the same finished
items are printed as plain lines.

A `task` call's sub-agent calls (events with `parent_tool_call_id`) are shown indented under
their task: in the live region while the task runs (the last few), and printed right after the
task's own line when it ends. The sub-agent's text is not shown (its answer is the task's
result).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from rich.console import Console, Group, RenderableType
from rich.text import Text

from ink_ls.agent.events import (
    AgentEvent,
    CompactionEvent,
    HookRunEvent,
    InstructionsEvent,
    MessageEndEvent,
    RunEndEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolEndEvent,
    ToolRunningEvent,
    ToolSettledEvent,
    ToolStartEvent,
    WarningEvent,
)
from ink_ls.core.messages import text_of
from ink_ls.run.accounting import context_line
from ink_ls.run.safe import clean, clean_line, safe_text
from ink_ls.tools.todo import TODO_TOOL, TodoItem, checklist, todos_of

if TYPE_CHECKING:  # the live region's parts load only on a terminal (not for a pipe)
    from rich.live import Live
    from rich.table import Table

RowState = Literal["queued", "running", "done", "failed"]
TAIL_LINES = 8
LIVE_CHILDREN = 5
"""Sub-agent calls shown under a running task in the live region (the most recent ones)."""
INDENT = "  "


def format_duration(ms: float | None) -> str:
    if ms is None:
        return ""
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


@dataclass
class _Row:
    title: str
    state: RowState = "queued"
    started: float | None = None
    duration_ms: float | None = None
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    """Ids of the sub-agent calls of a task, in registration order."""
    line: Text | None = None
    """A finished sub-agent call's line, printed when its task ends."""


class TerminalView:
    """An `EventSink` rendering a run on `console`. Call `close()` when the run is over."""

    def __init__(
        self, console: Console, cwd: Path | None = None, *, err: Console | None = None
    ) -> None:
        self.console = console
        self._err = err or console
        """Warnings, and the model's reasoning when `console` is not a terminal (so a piped
        stdout keeps only the answer)."""
        self._cwd = cwd
        self._rows: dict[str, _Row] = {}
        self._todos: dict[str, list[TodoItem]] = {}
        self._streaming = ""
        self._thinking = ""
        self._live: Live | None = None
        if console.is_terminal:
            from rich.live import Live

            self._live = Live(
                self,
                console=console,
                refresh_per_second=10,
                transient=True,
                # log lines (stderr) print above the live region instead of through it
                redirect_stdout=False,
                redirect_stderr=sys.stderr.isatty(),
            )
            self._live.start()

    def close(self) -> None:
        """Stop the live region (idempotent)."""
        if self._live is not None:
            self._live.stop()
            self._live = None

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Hide the live region while something else (an approval question) uses the terminal."""
        live = self._live
        if live is None:
            yield
            return
        live.stop()
        try:
            yield
        finally:
            if self._live is live:
                live.start()

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, TextDeltaEvent):
            if event.parent_tool_call_id is None:  # a sub-agent's text is not the answer
                self._streaming += event.text
        elif isinstance(event, ThinkingDeltaEvent):
            if event.parent_tool_call_id is None:
                self._thinking += event.text
        elif isinstance(event, WarningEvent):
            self._err.print(f"warning: {event.message}", style="yellow", markup=False)
        elif isinstance(event, MessageEndEvent):
            self._streaming = self._thinking = ""
            thinking = (event.message.thinking or "").strip()
            if thinking:
                where = self.console if self._live else self._err
                where.print(safe_text(f"thinking: {thinking}", style="dim italic"))
            if event.message.text.strip():
                answer = clean(event.message.text)  # from outside: never markup, no controls
                self._print(_markdown(answer) if self._live else Text(answer))
        elif isinstance(event, ToolStartEvent):
            parent = event.parent_tool_call_id
            title = clean_line(event.title or event.tool_name)
            self._rows[event.tool_call_id] = _Row(title, parent=parent)
            if event.tool_name == TODO_TOOL:
                self._todos[event.tool_call_id] = todos_of(event.arguments) or []
            if parent is not None and parent in self._rows:
                self._rows[parent].children.append(event.tool_call_id)
        elif isinstance(event, ToolRunningEvent):
            row = self._rows.get(event.tool_call_id)
            if row is not None:
                row.state, row.started = "running", time.monotonic()
        elif isinstance(event, ToolSettledEvent):
            row = self._rows.get(event.tool_call_id)
            if row is not None:
                row.state = "failed" if event.is_error else "done"
                row.duration_ms = event.duration_ms
        elif isinstance(event, ToolEndEvent):
            self._ended(event)
        elif isinstance(event, HookRunEvent):
            if event.phase == "end" and event.outcome != "ok":
                self._print(
                    safe_text(f"hook {event.event} `{event.command}`: {event.message}", "yellow")
                )
        elif isinstance(event, InstructionsEvent | CompactionEvent):
            self._print(Text(context_line(event, self._cwd), style="dim"))
        elif isinstance(event, RunEndEvent):
            self._streaming = ""
            self._rows.clear()
            self.close()
        if self._live is not None:
            self._live.refresh()

    def _ended(self, event: ToolEndEvent) -> None:
        parent = event.parent_tool_call_id
        row = self._rows.get(event.tool_call_id) or _Row(clean_line(event.tool_name), parent=parent)
        duration = event.duration_ms if event.duration_ms is not None else row.duration_ms
        line = self._finished_line(row, event, duration)
        if parent is not None and parent in self._rows:
            # kept (shown done) under its running task; printed with the task's own line
            row.state, row.line = ("failed" if event.is_error else "done"), line
            row.duration_ms = duration
            return
        self._rows.pop(event.tool_call_id, None)
        if parent is not None:  # its task is already over: print it on its own, indented
            self._print(line)
            return
        self._print(line)
        todos = self._todos.pop(event.tool_call_id, [])
        if todos and not event.is_error:  # the to-do list as a checklist under its call
            for item, text in zip(todos, checklist(todos), strict=True):
                style = "dim" if item.status == "completed" else ""
                self._print(
                    safe_text(
                        f"{INDENT}{clean_line(text)}",
                        style="bold" if item.status == "in_progress" else style,
                    )
                )
        for child_id in row.children:
            child = self._rows.pop(child_id, None)
            if child is None:
                continue
            if child.line is None:  # abandoned with its task: it never ended
                child.line = Text(f"{INDENT}· {child.title}", style="dim")
                child.line.append("  did not finish", style="dim")
            self._print(child.line)

    def _print(self, renderable: RenderableType | str) -> None:
        self.console.print(renderable)

    def _finished_line(self, row: _Row, event: ToolEndEvent, duration: float | None) -> Text:
        indent = INDENT if row.parent is not None else ""
        line = Text(indent)
        if event.is_error:
            line.append("✗ ", style="bold red")
        else:
            line.append("✓ ", style="bold green")
        line.append(row.title, style="bold")
        if duration is not None:
            line.append(f"  {format_duration(duration)}", style="dim")
        if event.is_error:
            first = next((ln for ln in text_of(event.content).splitlines() if ln.strip()), "")
            if first:
                line.append(f"\n{indent}  {clean_line(first[:200])}", style="red")
        return line

    def __rich__(self) -> RenderableType:
        from rich.padding import Padding
        from rich.table import Table

        parts: list[RenderableType] = []
        if self._thinking and not self._streaming:  # reasoning until the answer begins
            tail = self._thinking.splitlines()[-TAIL_LINES:]
            parts.append(safe_text("thinking: " + "\n".join(tail), style="dim italic"))
        if self._streaming:
            tail = self._streaming.splitlines()[-TAIL_LINES:]
            parts.append(safe_text("\n".join(tail)))
        now = time.monotonic()
        table: Table | None = None
        for row in self._rows.values():
            if row.parent is not None and row.parent in self._rows:
                continue  # drawn under its task
            if table is None:
                table = Table.grid(padding=(0, 1))
            table.add_row(*self._cells(row, now))
            if row.children:
                # a task with sub-agent calls: its rows indented in a grid of their own
                parts.append(table)
                table = None
                sub = Table.grid(padding=(0, 1))
                shown = [c for c in row.children if c in self._rows][-LIVE_CHILDREN:]
                for child_id in shown:
                    sub.add_row(*self._cells(self._rows[child_id], now))
                parts.append(Padding(sub, (0, 0, 0, len(INDENT))))
        if table is not None:
            parts.append(table)
        return Group(*parts)

    def _cells(self, row: _Row, now: float) -> tuple[RenderableType, Text, Text]:
        label = Text(row.title, style="bold")
        if row.state == "running" and row.started is not None:
            from rich.spinner import Spinner

            elapsed = format_duration((now - row.started) * 1000)
            return Spinner("dots", style="cyan"), label, Text(elapsed, "dim")
        if row.state == "queued":
            return Text("·", "dim"), label, Text("queued", "dim")
        mark = Text("✗", "red") if row.state == "failed" else Text("✓", "green")
        return mark, label, Text(format_duration(row.duration_ms), "dim")


def _markdown(text: str) -> RenderableType:
    """Rendered Markdown; its parser and highlighter load on the first answer shown live."""
    from rich.markdown import Markdown

    # links show their target as text: no hidden OSC 8 hyperlink behind a harmless label
    return Markdown(text, hyperlinks=False)

"""The live terminal view of `ink-ls run`: streamed text, each tool call with its state
(queued, running, done, failed) and duration, a spinner while a call runs.

Finished items are printed once, in order, above a small live region that shows only what is
still in flight. On a console that is not a terminal nothing is animated: the same finished
items are printed as plain lines.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from ink_ls.agent.events import (
    AgentEvent,
    MessageEndEvent,
    RunEndEvent,
    TextDeltaEvent,
    ToolEndEvent,
    ToolRunningEvent,
    ToolSettledEvent,
    ToolStartEvent,
)
from ink_ls.agent.messages import text_of

RowState = Literal["queued", "running", "done", "failed"]
TAIL_LINES = 8
SUMMARY_CHARS = 72
_SUMMARY_KEYS = ("command", "path", "pattern", "description", "prompt", "query")


def summarize_args(arguments: dict[str, Any] | None) -> str:
    """A one-line hint of what a call is about (its command, path or pattern)."""
    if not arguments:
        return ""
    for key in _SUMMARY_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            line = " ".join(value.split())
            return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"
    return ""


def format_duration(ms: float | None) -> str:
    if ms is None:
        return ""
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


@dataclass
class _Row:
    name: str
    summary: str
    state: RowState = "queued"
    started: float | None = None
    duration_ms: float | None = None


class TerminalView:
    """An `EventSink` rendering a run on `console`. Call `close()` when the run is over."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._rows: dict[str, _Row] = {}
        self._streaming = ""
        self._live: Live | None = None
        if console.is_terminal:
            self._live = Live(
                self, console=console, refresh_per_second=10, transient=True,
                # log lines (stderr) print above the live region instead of through it
                redirect_stdout=False, redirect_stderr=sys.stderr.isatty(),
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
            self._streaming += event.text
        elif isinstance(event, MessageEndEvent):
            self._streaming = ""
            if event.message.text.strip():
                self._print(Markdown(event.message.text) if self._live else event.message.text)
        elif isinstance(event, ToolStartEvent):
            self._rows[event.tool_call_id] = _Row(event.tool_name,
                                                  summarize_args(event.arguments))
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
            row = self._rows.pop(event.tool_call_id, None) or _Row(event.tool_name, "")
            duration = event.duration_ms if event.duration_ms is not None else row.duration_ms
            self._print(self._finished_line(row, event, duration))
        elif isinstance(event, RunEndEvent):
            self._streaming = ""
            self._rows.clear()
            self.close()
        if self._live is not None:
            self._live.refresh()

    def _print(self, renderable: RenderableType | str) -> None:
        self.console.print(renderable)

    def _finished_line(self, row: _Row, event: ToolEndEvent, duration: float | None) -> Text:
        line = Text()
        if event.is_error:
            line.append("✗ ", style="bold red")
        else:
            line.append("✓ ", style="bold green")
        line.append(row.name, style="bold")
        if row.summary:
            line.append(f" {row.summary}")
        if duration is not None:
            line.append(f"  {format_duration(duration)}", style="dim")
        if event.is_error:
            first = next((ln for ln in text_of(event.content).splitlines() if ln.strip()), "")
            if first:
                line.append(f"\n  {first[:200]}", style="red")
        return line

    def __rich__(self) -> RenderableType:
        parts: list[RenderableType] = []
        if self._streaming:
            tail = self._streaming.splitlines()[-TAIL_LINES:]
            parts.append(Text("\n".join(tail)))
        if self._rows:
            table = Table.grid(padding=(0, 1))
            now = time.monotonic()
            for row in self._rows.values():
                label = Text(row.name, style="bold")
                if row.summary:
                    label.append(f" {row.summary}", style="")
                if row.state == "running" and row.started is not None:
                    elapsed = format_duration((now - row.started) * 1000)
                    table.add_row(Spinner("dots", style="cyan"), label, Text(elapsed, "dim"))
                elif row.state == "queued":
                    table.add_row(Text("·", "dim"), label, Text("queued", "dim"))
                else:
                    mark = Text("✗", "red") if row.state == "failed" else Text("✓", "green")
                    table.add_row(mark, label, Text(format_duration(row.duration_ms), "dim"))
            parts.append(table)
        return Group(*parts)

"""What `ink-ls run` tells about tokens and context: the lines for instruction files and
compactions, and the closing usage line (turn, session, share of the window)."""

from __future__ import annotations

from pathlib import Path

from ink_ls.agent.events import AgentEvent, CompactionEvent, InstructionsEvent, MessageEndEvent
from ink_ls.agent.tokens import share
from ink_ls.core.messages import Usage
from ink_ls.core.sanitize import clean_line


def _shown(path: str, cwd: Path | None) -> str:
    if cwd is None:
        return path
    try:
        return str(Path(path).relative_to(cwd))
    except ValueError:
        return path


def context_line(event: InstructionsEvent | CompactionEvent, cwd: Path | None) -> str:
    """One dim line for the terminal (file names and errors come from outside: cleaned)."""
    return clean_line(_context_text(event, cwd))


def _context_text(event: InstructionsEvent | CompactionEvent, cwd: Path | None) -> str:
    if isinstance(event, InstructionsEvent):
        names = ", ".join(_shown(p, cwd) for p in event.paths)
        cut = " (cut at the 32 KiB cap)" if event.truncated else ""
        return f"instructions: {names}{cut}"
    if event.phase == "start":
        return f"compacting the conversation ({event.tokens_before:,} tokens)…"
    if event.phase == "failed":
        return f"compaction failed: {event.error}"
    return (
        f"compacted the conversation: {event.tokens_before:,} → {event.tokens_after:,} "
        f"tokens ({event.summarized_messages} messages summarised, {event.kept_messages} "
        "kept)"
    )


class Meter:
    """An event sink in front of another that remembers the context size and the tokens."""

    def __init__(self, inner: object, session: Usage) -> None:
        self.inner = inner
        self.turn = Usage()
        self.session = session
        self.context_tokens: int | None = None
        self.context_window: int | None = None

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, MessageEndEvent):
            self.context_tokens = event.context_tokens
            self.context_window = event.context_window or self.context_window
            self._add(event.message.usage)
        elif isinstance(event, CompactionEvent) and event.phase == "end":
            self.context_tokens = event.tokens_after
            self._add(event.usage or Usage())
        if callable(self.inner):
            self.inner(event)

    def _add(self, usage: Usage) -> None:
        self.turn = self.turn.add(usage)
        self.session = self.session.add(usage)

    def summary(self) -> str:
        """`1,234 in (1,000 cached), 56 out · context 5,000 of 32,768 (15 %) · session …`"""
        turn, total = self.turn, self.session
        cached = f" ({turn.cache_read_tokens:,} cached)" if turn.cache_read_tokens else ""
        parts = [f"{turn.input_tokens:,} tokens in{cached}, {turn.output_tokens:,} out"]
        if self.context_tokens is not None and self.context_window:
            parts.append(
                f"context {self.context_tokens:,} of {self.context_window:,} "
                f"({share(self.context_tokens, self.context_window)} %)"
            )
        parts.append(f"session {total.input_tokens:,} in, {total.output_tokens:,} out")
        return " · ".join(parts)

"""Automatic compaction: the older part of a conversation becomes one summary message.

`Compactor.compact` picks a cut so the latest messages stay verbatim (the cut never falls
between an assistant's tool calls and their results), asks the model to summarise everything
before it, and returns a `Compaction`; `compacted_view` applies one to a history. Sessions
store the record and replay it, so this module is the one definition of what a compacted
history looks like. Nothing here changes a history: a cancelled or failed summary leaves the
caller's history as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ink_ls.agent.tokens import CHARS_PER_TOKEN, estimate_message, estimate_text
from ink_ls.core.messages import (
    AssistantMessage,
    Message,
    ToolResultMessage,
    Usage,
    UserMessage,
    text_of,
    user_text,
)
from ink_ls.core.signal import CancelSignal
from ink_ls.model.base import Model, ModelError, ModelRequest, ReplyDone

CompactReason = Literal["threshold", "overflow", "manual"]

SUMMARY_HEADER = (
    "[Summary of the earlier part of this conversation, written when it outgrew the context "
    "window. The messages after this one are verbatim.]"
)
KEEP_SHARE = 0.4
"""Share of the room left for the conversation that the verbatim tail may take."""
SUMMARY_SHARE = 0.25
"""Share of that room the summary may take (longer summaries are cut)."""
RESULT_CHARS = 1_500
TEXT_CHARS = 6_000
ARGS_CHARS = 400

SUMMARY_SYSTEM = """\
You compress a coding session between a user and ink, a coding agent, so that the work can \
continue in a fresh context. Write a summary that ink can rely on without the original \
messages:
- the user's requests and goals, in their words where it matters, and any constraints;
- what was done: files read, created or changed (with paths) and how, commands run and what \
they showed, errors met and how they were resolved;
- decisions taken and why; facts learned about the code base;
- what is still open and the next step.
Keep paths, names, numbers and error messages exact. Do not call tools. Answer with the \
summary only."""


class CompactionError(ModelError):
    """The summary could not be made (the model failed or answered nothing)."""


class CompactionCancelledError(Exception):
    """The summary request was cancelled; nothing changed."""


@dataclass(frozen=True)
class Compaction:
    """One compaction: the summary replaces all but the last `kept` messages."""

    summary: str
    kept: int
    reason: CompactReason
    tokens_before: int
    tokens_after: int
    usage: Usage
    seconds: float = 0.0


def summary_message(summary: str) -> UserMessage:
    return user_text(f"{SUMMARY_HEADER}\n\n{summary.strip()}")


def is_summary(message: Message) -> bool:
    return isinstance(message, UserMessage) and text_of(message.content).startswith(SUMMARY_HEADER)


def compacted_view(history: Sequence[Message], summary: str, kept: int) -> list[Message]:
    """The summary, then the last `kept` messages. Their usage is cleared: it counted a
    context that no longer exists, and token counting must not anchor on it."""
    tail = list(history[len(history) - kept :]) if kept > 0 else []
    view: list[Message] = [summary_message(summary)]
    for message in tail:
        if isinstance(message, AssistantMessage) and message.usage != Usage():
            message = message.model_copy(update={"usage": Usage()})
        view.append(message)
    return view


def choose_cut(history: Sequence[Message], keep_tokens: int) -> int | None:
    """Index of the first verbatim message: the earliest boundary whose tail fits
    `keep_tokens`, else the latest boundary. None when nothing can be summarised.

    A boundary is a user or assistant message (never tool results, which must follow their
    calls), at index 1 or later (something must be summarised)."""
    boundaries = [
        i for i in range(1, len(history)) if not isinstance(history[i], ToolResultMessage)
    ]
    if not boundaries:
        return None
    tail = 0
    best: int | None = None
    index = len(history)
    for cut in reversed(boundaries):
        tail += sum(estimate_message(m) for m in history[cut:index])
        index = cut
        if tail > keep_tokens:
            break
        best = cut
    return best if best is not None else boundaries[-1]


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f" […{len(text) - limit} characters cut]"


def transcript(messages: Sequence[Message], max_chars: int) -> str:
    """The messages as plain text for the summariser; over `max_chars`, the middle goes."""
    parts: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            label = "EARLIER SUMMARY" if is_summary(message) else "USER"
            parts.append(f"{label}:\n{_clip(text_of(message.content), TEXT_CHARS)}")
        elif isinstance(message, AssistantMessage):
            if message.text:
                parts.append(f"ASSISTANT:\n{_clip(message.text, TEXT_CHARS)}")
            for call in message.tool_calls:
                parts.append(f"ASSISTANT called {call.name}({_clip(call.arguments, ARGS_CHARS)})")
        else:
            for r in message.results:
                flag = " (error)" if r.is_error else ""
                parts.append(
                    f"RESULT of {r.tool_name}{flag}:\n{_clip(text_of(r.content), RESULT_CHARS)}"
                )
    text = "\n\n".join(parts)
    if len(text) <= max_chars:
        return text
    note = "\n\n[… the middle of the conversation was cut to fit …]\n\n"
    head = max_chars // 3
    tail = max_chars - head - len(note)
    return text[:head] + note + text[len(text) - max(tail, 0) :]


async def _collect(model: Model, request: ModelRequest, signal: CancelSignal) -> AssistantMessage:
    """One whole reply; `CompactionCancelledError` as soon as the signal fires."""

    async def consume() -> AssistantMessage:
        async for item in model.stream(request, signal):
            if isinstance(item, ReplyDone):
                return item.message
        raise CompactionError("the model stream ended without a final message")

    if signal.cancelled:
        raise CompactionCancelledError()
    task = asyncio.ensure_future(consume())
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait((task, waiter), return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    if signal.cancelled or task.cancelled():
        raise CompactionCancelledError()
    reply = task.result()
    if reply.stop_reason == "aborted":
        raise CompactionCancelledError()
    return reply


@dataclass
class Compactor:
    """Decides when to compact and makes the summary with the conversation's own model."""

    model: Model
    window: int
    threshold: float = 0.8

    def over(self, tokens: int) -> bool:
        return tokens > self.threshold * self.window

    def room(self, fixed_tokens: int) -> int:
        """Tokens left under the threshold once the system prompt and tools are sent."""
        return max(int(self.threshold * self.window) - fixed_tokens, 256)

    async def compact(
        self,
        history: Sequence[Message],
        *,
        fixed_tokens: int,
        tokens_before: int,
        reason: CompactReason,
        signal: CancelSignal,
    ) -> Compaction | None:
        """A summary of all but the latest messages; None when there is nothing older to
        summarise. Raises `CompactionCancelledError` or `CompactionError`."""
        room = self.room(fixed_tokens)
        cut = choose_cut(history, int(room * KEEP_SHARE))
        if cut is None:
            return None
        loop = asyncio.get_running_loop()
        started = loop.time()
        budget_tokens = self.window - estimate_text(SUMMARY_SYSTEM) - int(room * SUMMARY_SHARE)
        max_chars = max(budget_tokens, 512) * CHARS_PER_TOKEN * 9 // 10
        body = transcript(history[:cut], max_chars)
        prompt = f"The conversation so far:\n\n{body}\n\nWrite the summary now."
        request = ModelRequest(SUMMARY_SYSTEM, [user_text(prompt)], [])
        try:
            reply = await _collect(self.model, request, signal)
        except ModelError as exc:
            raise CompactionError(f"could not compact the conversation: {exc}") from exc
        summary = reply.text.strip()
        if reply.stop_reason == "error" or not summary:
            raise CompactionError(
                "could not compact the conversation: "
                + (reply.error or "the model answered with an empty summary")
            )
        summary = _clip(summary, int(room * SUMMARY_SHARE) * CHARS_PER_TOKEN)
        kept = len(history) - cut
        after = compacted_view(history, summary, kept)
        tokens_after = fixed_tokens + sum(estimate_message(m) for m in after)
        return Compaction(
            summary=summary,
            kept=kept,
            reason=reason,
            tokens_before=tokens_before,
            tokens_after=tokens_after,
            usage=reply.usage,
            seconds=loop.time() - started,
        )


def describe(compaction: Compaction) -> dict[str, Any]:
    """The record a session file stores for a compaction (see `sessions.store`)."""
    return {
        "summary": compaction.summary,
        "kept": compaction.kept,
        "reason": compaction.reason,
        "tokensBefore": compaction.tokens_before,
        "tokensAfter": compaction.tokens_after,
    }

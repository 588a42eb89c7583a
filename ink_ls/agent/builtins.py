"""The built-in slash commands, done instead of a model turn in every front end: `/compact`
summarises the older messages now, `/clear` starts a fresh conversation in the same session,
`/rewind` is the front end's (it needs the stored session's checkpoints).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ink_ls.agent.commands import builtin_call
from ink_ls.agent.compaction import (
    Compaction,
    CompactionCancelledError,
    CompactionError,
    compacted_view,
)
from ink_ls.agent.events import RunEndEvent, TextDeltaEvent
from ink_ls.core.messages import Usage
from ink_ls.core.signal import CancelSignal

if TYPE_CHECKING:
    from ink_ls.agent.loop import Agent, RunResult

Rewinder = Callable[[str], Awaitable[str]]
"""Does `/rewind …` (the whole prompt) on the session; returns what the user reads."""

CLEARED = (
    "The user cleared the conversation with /clear. Nothing said before this point applies; "
    "start afresh from the next message."
)


async def _compact(agent: Agent, signal: CancelSignal) -> tuple[str, str | None]:
    try:
        done = await agent.compact(signal)
    except CompactionError as exc:
        return "", f"compaction failed: {exc}"
    except CompactionCancelledError:
        return "", "cancelled"
    if done is None:
        return "Nothing older than the latest turn to compact.", None
    return (
        f"Compacted the conversation: {done.tokens_before:,} → {done.tokens_after:,} tokens.",
        None,
    )


def clear(agent: Agent) -> str:
    """Forget the conversation: the history becomes one note, recorded like a compaction that
    keeps nothing (the session file keeps the earlier messages; a resumed session starts here)."""
    history = agent.history
    dropped = len(history)
    history[:] = compacted_view(history, CLEARED, 0)
    agent.context.on_compaction(Compaction(CLEARED, 0, "manual", 0, 0, Usage()))
    return f"Started a fresh conversation ({dropped} earlier messages are no longer sent)."


async def run_builtin(
    agent: Agent, typed: str, signal: CancelSignal, rewind: Rewinder | None
) -> RunResult | None:
    """The result of a built-in command, or None when `typed` is not one (or `/rewind` where
    the front end has no session to rewind: it then goes to the model as typed)."""
    from ink_ls.agent.loop import RunResult

    call = builtin_call(typed)
    if call is None:
        return None
    name, _ = call
    error: str | None = None
    if name == "compact":
        text, error = await _compact(agent, signal)
    elif name == "clear":
        text = clear(agent)
    elif rewind is not None:
        text = await rewind(typed)
    else:
        return None
    if error is None:
        result = RunResult(stop_reason="completed", text=text, usage=Usage())
        agent.on_event(TextDeltaEvent(text=text))  # shown as the answer, as a reply would be
    elif error == "cancelled":
        result = RunResult(stop_reason="aborted", text="", usage=Usage())
    else:
        result = RunResult(stop_reason="error", text="", usage=Usage(), error=error)
    agent.on_event(
        RunEndEvent(
            stop_reason=result.stop_reason, usage=Usage(), text=result.text, error=result.error
        )
    )
    return result

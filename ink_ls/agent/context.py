"""What one agent keeps of its context: the window, the token count, compaction and the
project instructions that join the system prompt.

The loop asks `before_request` before every model request (compacting first when the
request would pass the threshold), `overflow` when the endpoint refused the request as too
long, and `touched` after a batch of tool calls (new instruction files may apply). A
compaction changes the history in place and is handed to `on_compaction` (the session file
records it); a cancelled or failed one changes nothing.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ink_ls.agent.compaction import (
    Compaction,
    CompactionError,
    Compactor,
    CompactReason,
    compacted_view,
)
from ink_ls.agent.events import AgentEvent, CompactionEvent, InstructionsEvent, WarningEvent
from ink_ls.agent.instructions import InstructionFile, ProjectInstructions
from ink_ls.agent.tokens import context_tokens, estimate_fixed
from ink_ls.core.messages import AssistantMessage, Message, ToolCall
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import ToolRegistry
from ink_ls.model.base import Model
from ink_ls.model.wire import WireCache

log = logging.getLogger(__name__)

_LIMIT = re.compile(
    r"(?:maximum context length|context window|context length)\D{0,20}(\d{3,9})", re.IGNORECASE
)

CompactionSink = Callable[[Compaction], None]


BeforeCompact = Callable[[str, CancelSignal], Awaitable[None]]
"""Runs before a compaction (its reason: threshold, overflow, manual), e.g. PreCompact hooks."""


def ignore_compaction(compaction: Compaction) -> None:
    return None


def touched_paths(calls: Iterable[ToolCall], tools: ToolRegistry, cwd: Path) -> list[Path]:
    """The paths calls declared they read or write (tools without a declaration add none)."""
    out: list[Path] = []
    for call in calls:
        tool = tools.get(call.name)
        if tool is None:
            continue
        try:
            args = tool.params_model.model_validate(json.loads(call.arguments or "{}"))
            access = tool.access(args, cwd)
        except Exception:  # invalid arguments: the call failed, it touched nothing
            continue
        if access is not None:
            out += sorted(access.reads | access.writes)
    return out


def too_small(tokens: int, window: int, source: str | None) -> str:
    """What the user reads when the prompt is larger than the window the server runs."""
    where = f", {source}" if source else ""
    return (
        f"the prompt (about {tokens:,} tokens) is larger than the model's context window "
        f"({window:,} tokens{where}): the server will cut its start, the system prompt and "
        "tool descriptions first. Raise the window: set INK_CONTEXT_WINDOW (in the editor "
        "ink.model.contextWindow), e.g. 32768 — ink-ls sends it to Ollama as num_ctx; start "
        "llama-server with a larger --ctx-size, vLLM with a larger --max-model-len, or load "
        "the model in LM Studio with a larger context length"
    )


class ConversationContext:
    """Window, token count, compaction and instructions of one agent."""

    def __init__(
        self,
        model: Model,
        *,
        window: int | None,
        threshold: float,
        source: str | None = None,
        emit: Callable[[AgentEvent], None],
        on_compaction: CompactionSink = ignore_compaction,
        instructions: ProjectInstructions | None = None,
        before_compact: BeforeCompact | None = None,
        wire: WireCache | None = None,
    ) -> None:
        self.window = window
        self.source = source
        """Where the window figure came from, when known."""
        self._warned = False
        self.before_compact = before_compact
        self.compactor = Compactor(model, window, threshold) if window else None
        self._emit = emit
        self.on_compaction = on_compaction
        self.instructions = instructions
        self.wire = wire
        """The conversation's wire form, forgotten when a compaction replaces the history."""

    # ---- instructions -----------------------------------------------------------------------

    def start(self, history: Sequence[Message], tools: ToolRegistry, cwd: Path) -> None:
        """Load the root's instructions and those of paths the history already touched."""
        if self.instructions is None:
            return
        added = self.instructions.start()
        fresh = self.instructions.unscanned(history)  # earlier turns' paths were looked at
        calls = [c for m in fresh if isinstance(m, AssistantMessage) for c in m.tool_calls]
        added += self.instructions.relevant(touched_paths(calls, tools, cwd))
        self._announce(added)

    def touched(self, calls: Sequence[ToolCall], tools: ToolRegistry, cwd: Path) -> None:
        if self.instructions is not None:
            self._announce(self.instructions.relevant(touched_paths(calls, tools, cwd)))

    def _announce(self, added: list[InstructionFile]) -> None:
        if added:
            self._emit(
                InstructionsEvent(
                    paths=[str(f.path) for f in added], truncated=any(f.truncated for f in added)
                )
            )

    def system(self, base: str) -> str:
        """The system prompt with the loaded project instructions appended."""
        extra = self.instructions.render() if self.instructions is not None else ""
        return f"{base.rstrip()}\n\n{extra}\n" if extra else base

    # ---- tokens and compaction -----------------------------------------------------------

    def tokens(
        self, history: Sequence[Message], system: str, schemas: Sequence[dict[str, Any]]
    ) -> int:
        return context_tokens(history, system, schemas)

    async def before_request(
        self,
        history: list[Message],
        system: str,
        schemas: Sequence[dict[str, Any]],
        signal: CancelSignal,
    ) -> None:
        """Compact first when the request would pass the threshold. A failed summary is
        reported and the request goes out as it is; a cancel raises
        `CompactionCancelledError` with the history untouched."""
        if self.compactor is None:
            return
        tokens = self.tokens(history, system, schemas)
        if self.compactor.over(tokens):
            try:
                await self.compact(history, system, schemas, signal, "threshold", tokens)
            except CompactionError as exc:
                log.warning("%s", exc)
            tokens = self.tokens(history, system, schemas)
        known = self.source not in (None, "default")  # a guess is no reason to alarm anyone
        if known and self.window is not None and tokens > self.window and not self._warned:
            self._warned = True  # once: the user knows, the fix is theirs
            self._emit(WarningEvent(message=too_small(tokens, self.window, self.source)))

    async def overflow(
        self,
        history: list[Message],
        system: str,
        schemas: Sequence[dict[str, Any]],
        signal: CancelSignal,
        error: str = "",
    ) -> bool:
        """The endpoint refused the request as too long: learn the real window (from the
        error's "maximum context length is N", else a quarter under what was sent), compact
        against it; True when it did."""
        if self.compactor is None or self.window is None:
            return False
        sent = self.tokens(history, system, schemas)
        named = _LIMIT.search(error)
        learned = int(named.group(1)) if named else sent * 3 // 4
        if learned < self.window:
            log.info("the endpoint's window is smaller than assumed: %d tokens", learned)
            self.window = self.compactor.window = max(learned, 1024)
        tokens = max(sent, self.window)
        try:
            return (
                await self.compact(history, system, schemas, signal, "overflow", tokens) is not None
            )
        except CompactionError:
            return False

    def _failed(self, reason: CompactReason, before: int, error: str) -> None:
        self._emit(
            CompactionEvent(
                phase="failed",
                reason=reason,
                tokens_before=before,
                context_window=self.window,
                error=error,
            )
        )

    async def compact(
        self,
        history: list[Message],
        system: str,
        schemas: Sequence[dict[str, Any]],
        signal: CancelSignal,
        reason: CompactReason,
        tokens: int | None = None,
    ) -> Compaction | None:
        """Summarise the older part of `history` (in place). None: nothing to summarise."""
        if self.compactor is None:
            raise CompactionError("the context window is unknown; nothing to compact against")
        before = tokens if tokens is not None else self.tokens(history, system, schemas)
        if self.before_compact is not None:  # PreCompact hooks: reported, never blocking
            await self.before_compact(reason, signal)
        self._emit(
            CompactionEvent(
                phase="start", reason=reason, tokens_before=before, context_window=self.window
            )
        )
        try:
            result = await self.compactor.compact(
                history,
                fixed_tokens=estimate_fixed(system, schemas),
                tokens_before=before,
                reason=reason,
                signal=signal,
            )
        except CompactionError as exc:
            self._failed(reason, before, str(exc))
            raise
        except BaseException:
            self._failed(reason, before, "cancelled")
            raise
        if result is None:
            self._failed(reason, before, "nothing older than the latest turn to summarise")
            return None
        summarized = len(history) - result.kept
        history[:] = compacted_view(history, result.summary, result.kept)
        if self.wire is not None:
            self.wire.invalidate()
        try:
            self.on_compaction(result)
        except Exception:
            log.exception("compaction listener failed")
        self._emit(
            CompactionEvent(
                phase="end",
                reason=reason,
                tokens_before=before,
                tokens_after=result.tokens_after,
                context_window=self.window,
                summarized_messages=summarized,
                kept_messages=result.kept,
                duration_ms=round(result.seconds * 1000, 3),
                usage=result.usage,
            )
        )
        return result

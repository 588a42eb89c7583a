"""Maps a turn's `AgentEvent`s to `ink/session/update` notifications and work-done progress.

One `TurnReporter` per turn. It only sends notifications; it never decides anything.

Calls of a `task` sub-agent (events with `parent_tool_call_id`, ids `<task id>/<child id>`)
become `tool_call`/`tool_call_update`s carrying `parentToolCallId`; they count in the progress
reports, titled `<task title> › <call title>`. The sub-agent's text is not sent: it is not the
answer, and its final answer reaches the editor as the task call's result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from ink_ls.agent.events import (
    AgentEvent,
    CompactionEvent,
    HookRunEvent,
    InstructionsEvent,
    MessageEndEvent,
    ModelQueueEvent,
    RunEndEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolEndEvent,
    ToolProgressEvent,
    ToolRunningEvent,
    ToolSettledEvent,
    ToolStartEvent,
    UsageEvent,
    WarningEvent,
)
from ink_ls.core.messages import ImageBlock, TextBlock, Usage, text_of
from ink_ls.core.tool import CommandDisplay, DiffDisplay, short_line
from ink_ls.editor.client import EditorClient
from ink_ls.protocol import lsp
from ink_ls.protocol.methods import PROGRESS, PROGRESS_TITLE, SESSION_UPDATE
from ink_ls.protocol.models import (
    AgentMessageChunk,
    CompactionUpdate,
    ContentItem,
    DiffItem,
    ErrorUpdate,
    ImageContent,
    InstructionsLoadedUpdate,
    ModelQueueUpdate,
    RawOutput,
    SessionUpdateBody,
    SessionUpdateParams,
    TextContent,
    ThinkingChunk,
    ToolCallContent,
    ToolCallRegistered,
    ToolCallUpdate,
    ToolStatus,
    TurnEndUpdate,
    UsageUpdate,
    WarningUpdate,
    WireStopReason,
)


def queue_line(ahead: int) -> str:
    """What a person reads while the request waits for the endpoint's limit."""
    return f"waiting for the model endpoint ({ahead} ahead)"


def hook_line(event: HookRunEvent) -> str:
    """`hook PreToolUse: ./check.sh` while it runs, then `… — blocked: <reason>` and so on."""
    line = f"hook {event.event}: {short_line(event.command, 60)}"
    return line if event.phase == "start" else f"{line} — {short_line(event.message, 80)}"


def _status(event: ToolSettledEvent | ToolEndEvent) -> ToolStatus:
    """A call the user's cancel ended is `cancelled`, not `failed`."""
    if event.cancelled:
        return "cancelled"
    return "failed" if event.is_error else "completed"


class TurnReporter:
    """Turns one turn's events into updates and progress reports."""

    def __init__(
        self,
        client: EditorClient,
        *,
        session_id: str,
        turn_id: str,
        cwd: Path,
        progress_token: str | int | None,
        session_usage: Usage | None = None,
    ) -> None:
        self._client = client
        self._session_id = session_id
        self._turn_id = turn_id
        self._cwd = cwd
        self._token = progress_token
        self._titles: dict[str, str] = {}
        self._registered = 0
        self._settled = 0
        self._usage = Usage()
        self.session_usage = session_usage if session_usage is not None else Usage()
        """The session's tokens before this turn, plus the turn's as it goes."""
        self._context: tuple[int | None, int | None] = (None, None)
        self._source: str | None = None
        self._waiting: list[str] = []  # calls waiting for the user's approval, oldest first
        self._held: list[dict[str, Any]] | None = None
        """Progress values kept until the client has created the token (`hold_progress`)."""
        self._creating: asyncio.Task[None] | None = None

    def send(self, update: SessionUpdateBody) -> None:
        params = SessionUpdateParams(
            session_id=self._session_id, turn_id=self._turn_id, update=update
        )
        self._client.notify(SESSION_UPDATE, params.dump())

    def progress(self, value: dict[str, Any]) -> None:
        if self._token is None:
            return
        if self._held is not None:
            self._held.append(value)
        else:
            self._client.notify(PROGRESS, lsp.progress_params(self._token, value))

    def hold_progress(self, created: Awaitable[bool]) -> None:
        """The token is being created (`created` says whether the client accepted it): the
        turn goes on meanwhile, and its progress goes out, in order, once it is accepted
        (none if refused). LSP forbids using a token before the client created it."""
        self._held = []
        self._creating = asyncio.ensure_future(self._release(created))

    async def _release(self, created: Awaitable[bool]) -> None:
        accepted = await created
        held, self._held = self._held or [], None
        if not accepted:
            self._token = None
            return
        for value in held:
            self.progress(value)

    async def settled(self) -> None:
        """Wait until the token is created or refused (what was held has gone out)."""
        if self._creating is not None:
            await self._creating

    def begin(self, prompt: str) -> None:
        self.progress(lsp.progress_begin(PROGRESS_TITLE, short_line(prompt, 60)))

    def end(self, stop: WireStopReason, error: str | None) -> None:
        """Send `error` (if any) and `turn_end` updates, then end the progress."""
        if error:
            self.send(ErrorUpdate(message=error))
        self.send(TurnEndUpdate(stop_reason=stop))
        outcome = {
            "end_turn": "done",
            "cancelled": "cancelled",
            "max_tokens": "stopped: output-token limit",
            "max_turn_requests": "stopped: turn limit",
            "error": f"failed: {error or 'unknown error'}",
        }[stop]
        self.progress(lsp.progress_end(outcome))

    def waiting(self, tool_call_id: str) -> None:
        """`ApprovalWatch`: the call waits for the user; progress says so until `resumed`."""
        self._waiting.append(tool_call_id)
        self._report(tool_call_id)

    def resumed(self, tool_call_id: str) -> None:
        """`ApprovalWatch`: the call stopped waiting (answered, withdrawn or timed out)."""
        if tool_call_id in self._waiting:
            self._waiting.remove(tool_call_id)
        self._report(tool_call_id)

    def _report(self, call_id: str) -> None:
        if self._waiting:  # a pending approval outranks counting: the user must act
            waiting = self._titles.get(self._waiting[-1], "tool")
            self.progress(lsp.progress_report(f"waiting for approval: {waiting}"))
            return
        title = self._titles.get(call_id, "tool")
        self.progress(lsp.progress_report(f"{title} — {self._settled} of {self._registered} done"))

    def _queued(self, ahead: int | None) -> None:
        if ahead is None:
            self.send(ModelQueueUpdate(status="running"))
            self.progress(lsp.progress_report("asking the model"))
        else:
            self.send(ModelQueueUpdate(status="queued", ahead=ahead))
            self.progress(lsp.progress_report(queue_line(ahead)))

    def on_event(self, event: AgentEvent) -> None:
        """The `EventSink` of the turn's agent."""
        if isinstance(event, TextDeltaEvent):
            if event.text and event.parent_tool_call_id is None:
                self.send(AgentMessageChunk(content=TextContent(text=event.text)))
        elif isinstance(event, ThinkingDeltaEvent):
            if event.text and event.parent_tool_call_id is None:
                self.send(ThinkingChunk(content=TextContent(text=event.text)))
        elif isinstance(event, WarningEvent):
            self.send(WarningUpdate(message=event.message))
        elif isinstance(event, ModelQueueEvent):
            self._queued(event.ahead)
        elif isinstance(event, ToolStartEvent):
            title = event.title or event.tool_name
            parent = event.parent_tool_call_id
            # progress names a sub-agent's call after its task; the update keeps its own title
            self._titles[event.tool_call_id] = (
                f"{self._titles[parent]} › {title}" if parent in self._titles else title
            )
            self._registered += 1
            self.send(
                ToolCallRegistered(
                    tool_call_id=event.tool_call_id,
                    title=title,
                    kind=event.kind,
                    raw_input=event.arguments or {},
                    parent_tool_call_id=parent,
                )
            )
        elif isinstance(event, ToolRunningEvent):
            self.send(
                ToolCallUpdate(
                    tool_call_id=event.tool_call_id,
                    status="in_progress",
                    phase="running",
                    parent_tool_call_id=event.parent_tool_call_id,
                )
            )
            self._report(event.tool_call_id)
        elif isinstance(event, HookRunEvent):
            if not self._waiting:  # a hook of the user's settings shows while it runs
                self.progress(lsp.progress_report(hook_line(event)))
        elif isinstance(event, ToolProgressEvent):
            if not self._waiting:  # a pending approval outranks it
                title = self._titles.get(event.tool_call_id, event.tool_name)
                self.progress(lsp.progress_report(f"{title}: {event.message}"))
        elif isinstance(event, ToolSettledEvent):
            self._settled += 1
            self.send(
                ToolCallUpdate(
                    tool_call_id=event.tool_call_id,
                    status=_status(event),
                    phase="settled",
                    duration_ms=round(event.duration_ms, 3),
                    parent_tool_call_id=event.parent_tool_call_id,
                )
            )
            self._report(event.tool_call_id)
        elif isinstance(event, ToolEndEvent):
            self._delivered(event)
        elif isinstance(event, MessageEndEvent):
            self._context = (event.context_tokens, event.context_window)
            self._source = event.context_window_source or self._source
            self._count(event.message.usage)
        elif isinstance(event, CompactionEvent):
            self._compaction(event)
        elif isinstance(event, InstructionsEvent):
            self.send(InstructionsLoadedUpdate(paths=event.paths, truncated=event.truncated))
        elif isinstance(event, UsageEvent):  # a sub-agent's reply: in the turn's totals too
            self._count(event.usage)
        elif isinstance(event, RunEndEvent):
            pass  # the turn's end is reported by `end()`, after the run returns

    def _count(self, usage: Usage) -> None:
        self._usage = self._usage.add(usage)
        self.session_usage = self.session_usage.add(usage)
        tokens, window = self._context
        self.send(
            UsageUpdate(
                input_tokens=self._usage.input_tokens,
                output_tokens=self._usage.output_tokens,
                cache_read_tokens=self._usage.cache_read_tokens,
                context_tokens=tokens,
                context_window=window,
                context_window_source=self._source if window else None,
                session_input_tokens=self.session_usage.input_tokens,
                session_output_tokens=self.session_usage.output_tokens,
                session_cache_read_tokens=self.session_usage.cache_read_tokens,
            )
        )

    def _compaction(self, event: CompactionEvent) -> None:
        """Progress while summarising; the update at each phase; usage once it is done."""
        if event.phase == "start":
            self.progress(lsp.progress_report("compacting the conversation"))
        self.send(CompactionUpdate.model_validate(event.model_dump(exclude={"type", "usage"})))
        if event.phase == "end":
            self._context = (event.tokens_after, event.context_window)
            self._count(event.usage or Usage())

    def _delivered(self, event: ToolEndEvent) -> None:
        items: list[ToolCallContent] = []
        for block in event.content:
            if isinstance(block, TextBlock):
                items.append(ContentItem(content=TextContent(text=block.text)))
            elif isinstance(block, ImageBlock):
                items.append(
                    ContentItem(content=ImageContent(data=block.data, mime_type=block.mime_type))
                )
        shown = event.display
        if isinstance(shown, DiffDisplay):
            items.append(
                DiffItem(path=str(shown.path), old_text=shown.old_text, new_text=shown.new_text)
            )
        raw = RawOutput(is_error=event.is_error, text=text_of(event.content))
        if isinstance(shown, CommandDisplay):
            raw.exit_code = shown.exit_code
        self.send(
            ToolCallUpdate(
                tool_call_id=event.tool_call_id,
                status=_status(event),
                phase="delivered",
                content=items,
                raw_output=raw,
                parent_tool_call_id=event.parent_tool_call_id,
            )
        )

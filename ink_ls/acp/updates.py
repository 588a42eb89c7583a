"""Agent events and stored history as ACP `session/update`s: message chunks, tool calls (kind,
title, locations, diff or output content), the plan, and the runs of the user's hooks.

Pure mapping: it sends nothing. `todo_write` calls become `plan` updates, not tool calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp import (
    image_block,
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message,
)
from acp.helpers import SessionUpdate, ToolCallContentVariant
from acp.schema import ToolCallLocation

from ink_ls.acp.hook_updates import HookUpdates
from ink_ls.acp.terminal import LiveOutput
from ink_ls.agent.events import (
    AgentEvent,
    HookRunEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolEndEvent,
    ToolOutputEvent,
    ToolRunningEvent,
    ToolStartEvent,
    WarningEvent,
)
from ink_ls.core.messages import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultMessage,
    UserMessage,
    text_of,
)
from ink_ls.core.tool import CommandDisplay, DiffDisplay, Display, ToolKind, ToolRegistry
from ink_ls.tools.todo import TODO_TOOL, todos_of

Describe = Callable[[str, dict[str, Any] | None], tuple[str, ToolKind]]
"""(tool name, arguments) → the call's title and kind, as its tool states them."""


def _path_arg(args: dict[str, Any] | None, cwd: Path) -> Path | None:
    value = (args or {}).get("path")
    if not isinstance(value, str) or not value.strip():
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else cwd / path


def describer(tools: ToolRegistry, cwd: Path) -> Describe:
    """Titles and kinds from the session's tools (for calls replayed from history)."""

    def describe(name: str, args: dict[str, Any] | None) -> tuple[str, ToolKind]:
        tool = tools.get(name)
        if tool is None:
            return name, "other"
        return tool.title(args or {}, cwd), tool.kind

    return describe


def _locations(name: str, args: dict[str, Any] | None, cwd: Path) -> list[ToolCallLocation]:
    path = _path_arg(args, cwd)
    if path is None:
        return []
    offset = (args or {}).get("offset") if name == "read" else None
    line = offset - 1 if isinstance(offset, int) and offset > 0 else None
    return [ToolCallLocation(path=str(path), line=line)]


def _blocks(content: list[ContentBlock]) -> list[ToolCallContentVariant]:
    out: list[ToolCallContentVariant] = []
    for block in content:
        if isinstance(block, ImageBlock):
            out.append(tool_content(image_block(block.data, block.mime_type)))
        elif block.text:
            out.append(tool_content(text_block(block.text)))
    return out


def result_content(
    content: list[ContentBlock], display: Display | None
) -> list[ToolCallContentVariant]:
    """A diff for changes, the output in a fence for commands, else what the model got."""
    if isinstance(display, DiffDisplay):
        return [tool_diff_content(str(display.path), display.new_text, display.old_text or None)]
    if isinstance(display, CommandDisplay):
        return [tool_content(text_block(f"```console\n{text_of(content).rstrip()}\n```"))]
    return _blocks(content)


def plan_update(args: dict[str, Any] | None) -> SessionUpdate | None:
    """The `plan` update for a `todo_write` call's arguments (None when they do not validate)."""
    items = todos_of(args)
    if items is None:
        return None
    return update_plan(plan_entry(i.content, priority="medium", status=i.status) for i in items)


class UpdateMapper:
    """Maps the events of one session's turns to updates; remembers which calls are plans."""

    def __init__(self, cwd: Path, describe: Describe, *, terminals: bool = False) -> None:
        self.cwd = cwd
        self._describe = describe
        self._plans: set[str] = set()
        self._hooks = HookUpdates()
        self.live = LiveOutput()
        self.live.terminals = terminals
        """Running commands' output (as terminals when the client shows them)."""

    def updates(self, event: AgentEvent) -> list[SessionUpdate]:
        if isinstance(event, TextDeltaEvent):
            if event.parent_tool_call_id is not None or not event.text:
                return []  # a sub-agent's text is not the answer
            return [update_agent_message_text(event.text)]
        if isinstance(event, ThinkingDeltaEvent):
            if event.parent_tool_call_id is not None or not event.text:
                return []
            return [update_agent_thought_text(event.text)]
        if isinstance(event, HookRunEvent):  # shown like the editors show it in progress
            return self._hooks.updates(event)
        if isinstance(event, WarningEvent):  # ACP has no warning update: the user reads it
            return [update_agent_message_text(f"\n\n> ⚠ {event.message}\n\n")]
        if isinstance(event, ToolStartEvent):
            return self._start(
                event.tool_call_id,
                event.tool_name,
                event.arguments,
                (event.title or event.tool_name, event.kind),
            )
        if isinstance(event, ToolRunningEvent):
            if event.tool_call_id in self._plans:
                return []
            return [update_tool_call(event.tool_call_id, status="in_progress")]
        if isinstance(event, ToolOutputEvent):
            return [self.live.output(event.tool_call_id, event.text)]
        if isinstance(event, ToolEndEvent):
            if event.tool_call_id in self._plans:
                return []
            content, meta = self.live.ended(
                event.tool_call_id,
                result_content(event.content, event.display),
                event.is_error,
                text_of(event.content),
            )
            update = update_tool_call(
                event.tool_call_id,
                status="failed" if event.is_error else "completed",
                content=content,
            )
            update.field_meta = meta
            return [update]
        return []

    def _start(
        self,
        call_id: str,
        name: str,
        args: dict[str, Any] | None,
        described: tuple[str, ToolKind] | None = None,
    ) -> list[SessionUpdate]:
        if name == TODO_TOOL:
            plan = plan_update(args)
            if plan is not None:
                self._plans.add(call_id)
                return [plan]
        title, kind = described or self._describe(name, args)
        content, meta = self.live.started(call_id, name) if described else ([], None)
        start = start_tool_call(
            call_id,
            title,
            kind=kind,
            status="pending",
            content=content or None,
            locations=_locations(name, args, self.cwd),
            raw_input=args,
        )
        start.field_meta = meta
        return [start]

    def replay(self, history: list[Message]) -> list[SessionUpdate]:
        """The stored conversation as the updates a client shows (`session/load`)."""
        out: list[SessionUpdate] = []
        for message in history:
            if isinstance(message, UserMessage):
                for block in message.content:
                    out.append(
                        update_user_message(
                            image_block(block.data, block.mime_type)
                            if isinstance(block, ImageBlock)
                            else text_block(block.text)
                        )
                    )
            elif isinstance(message, AssistantMessage):
                if message.thinking:
                    out.append(update_agent_thought_text(message.thinking))
                if message.text:
                    out.append(update_agent_message_text(message.text))
                for call in message.tool_calls:
                    try:
                        args = json.loads(call.arguments)
                    except ValueError:
                        args = None
                    out.extend(
                        self._start(call.id, call.name, args if isinstance(args, dict) else None)
                    )
            elif isinstance(message, ToolResultMessage):
                for entry in message.results:
                    if entry.tool_call_id in self._plans:
                        continue
                    out.append(
                        update_tool_call(
                            entry.tool_call_id,
                            status="failed" if entry.is_error else "completed",
                            content=_blocks(entry.content),
                        )
                    )
        return out


def prompt_blocks(blocks: list[Any]) -> list[ContentBlock]:
    """ACP prompt content → the user message's blocks. Embedded resources become fenced text
    with their URI; links are named. Raises ValueError for content we did not advertise."""
    out: list[ContentBlock] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            out.append(TextBlock(text=block.text))
        elif kind == "image":
            out.append(ImageBlock(data=block.data, mime_type=block.mime_type))
        elif kind == "resource":
            res = block.resource
            text = getattr(res, "text", None)
            if text is None:
                out.append(TextBlock(text=f"[attached binary resource {res.uri}]"))
            else:
                out.append(TextBlock(text=f"Context from {res.uri}:\n```\n{text}\n```"))
        elif kind == "resource_link":
            out.append(TextBlock(text=f"[referenced: {block.uri}]"))
        else:
            raise ValueError(
                f"prompt content of type {kind!r} is not supported "
                "(text, image, resource and resource_link are)"
            )
    return out

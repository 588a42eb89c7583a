"""What the hook runner needs of a configured hook, and Claude Code's matcher rule.

The settings loader (`ink_ls.core.settings_files`) parses the `hooks` sections of every file
into entries with these fields; nothing here reads files or runs anything.
"""

from __future__ import annotations

import re
from typing import Literal, Protocol

HookEventName = Literal[
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "PreCompact"
]
EVENTS: tuple[HookEventName, ...] = HookEventName.__args__  # type: ignore[attr-defined]
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
DEFAULT_TIMEOUT = 60.0
"""Seconds a hook may run when its entry gives no `timeout` (Claude Code's default)."""


class HookSpec(Protocol):
    """What the runner needs of an entry (the settings loader's entries have these fields)."""

    @property
    def event(self) -> str: ...
    @property
    def matcher(self) -> str: ...
    @property
    def command(self) -> str: ...
    @property
    def timeout(self) -> float | None: ...


def matches(matcher: str, tool_name: str) -> bool:
    """Claude Code's matcher: empty or `*` matches every tool, else a regex on the whole name
    (`Edit|Write`, `mcp__github__.*`). A matcher that is not a valid regex matches literally."""
    if matcher in ("", "*"):
        return True
    try:
        return re.fullmatch(matcher, tool_name) is not None
    except re.error:
        return matcher == tool_name

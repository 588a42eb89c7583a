"""The `hooks` section of a settings file (Claude Code's shape) and the entries it yields.

An entry is one command for one event and matcher, with the file it came from; hooks of every
file run. Parsing reports problems as `<file> at hooks.<Event>[n]…: <message>`; it runs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore")


class HookCommand(_Section):
    type: Literal["command"] = "command"
    command: str = Field(min_length=1)
    timeout: float | None = Field(default=None, gt=0)


class HookMatcher(_Section):
    matcher: str = ""
    hooks: list[HookCommand] = Field(default_factory=list)


@dataclass(frozen=True)
class HookEntry:
    """One hook command for one event (and, for tool events, a tool-name matcher)."""

    event: HookEventName
    matcher: str
    command: str
    timeout: float | None
    source: str
    """The settings file it came from."""


def parse_hooks(raw: object, source: str) -> tuple[list[HookEntry], list[str]]:
    """Entries of a `hooks` section, and one line per problem (the rest still loads)."""
    if not isinstance(raw, Mapping):
        return [], [f"{source} at hooks: must be an object"]
    entries: list[HookEntry] = []
    problems: list[str] = []
    for event, matchers in raw.items():
        if event not in EVENTS:
            problems.append(f"{source} at hooks.{event}: unknown event; one of {', '.join(EVENTS)}")
            continue
        if not isinstance(matchers, list):
            problems.append(f"{source} at hooks.{event}: must be a list of matchers")
            continue
        for n, item in enumerate(matchers):
            try:
                matcher = HookMatcher.model_validate(item)
            except ValidationError as exc:
                for err in exc.errors(include_url=False, include_input=False):
                    where = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in err["loc"])
                    problems.append(f"{source} at hooks.{event}[{n}]{where}: {err['msg']}")
                continue
            for hook in matcher.hooks:
                entries.append(
                    HookEntry(event, matcher.matcher, hook.command, hook.timeout, source)
                )
    return entries, problems


def matches(matcher: str, tool_name: str) -> bool:
    """Claude Code's matcher: empty or `*` matches every tool, else a regex on the whole name
    (`Edit|Write`, `mcp__github__.*`). A matcher that is not a valid regex matches literally."""
    if matcher in ("", "*"):
        return True
    try:
        return re.fullmatch(matcher, tool_name) is not None
    except re.error:
        return matcher == tool_name

"""Permission rules as written (`Bash(npm run test:*)`, `Read(./secrets/**)`, `mcp__git`, `Edit`)
turned into matchers: command prefixes by words, paths by gitignore patterns.

`:*` (or a last word `*`) means "this prefix, then a space or the end": `Bash(npm run test:*)`
matches `npm run test -- --watch`, not `npm run test:unit`. Words are compared after quote
removal, so quoting never hides a command. Claude Code's tool names map onto ours.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ink_ls.core.settings_files import RuleEntry, RuleKind, SettingsSource
from ink_ls.rules.shell import Word

if TYPE_CHECKING:  # imported when the first path rule is compiled: not on the start-up path
    import pathspec

TOOL_NAMES = {
    "bash": "bash",
    "read": "read",
    "edit": "edit",
    "multiedit": "edit",
    "write": "write",
    "grep": "grep",
    "glob": "find",
    "find": "find",
    "ls": "ls",
    "task": "task",
    "todowrite": "todo_write",
    "todo_write": "todo_write",
}
"""Rule tool names (Claude Code's and ours, any case) → our tool names."""
PATH_KINDS = ("read", "edit", "write")
_RULE = re.compile(r"^(?P<tool>[A-Za-z0-9_\-]+)(?:\((?P<spec>.*)\))?$", re.DOTALL)


class RuleSyntaxError(ValueError):
    """A rule that cannot be understood; the message says which and why."""


@dataclass(frozen=True)
class CommandPattern:
    words: tuple[str, ...]
    prefix: bool

    def match(self, words: tuple[Word, ...]) -> bool | None:
        """True, False, or None when unknown words decide it."""
        if len(words) < len(self.words) or (not self.prefix and len(words) != len(self.words)):
            return False
        unknown = False
        for want, have in zip(self.words, words, strict=False):
            if have is None:
                unknown = True
            elif have != want:
                return False
        return None if unknown else True


@dataclass(frozen=True)
class PathView:
    """A path as path rules see it: as given and with links resolved, and whether it is a
    directory (looked up once per decision, whatever the number of rules)."""

    spellings: tuple[str, ...]
    is_dir: bool


def path_view(path: Path) -> PathView:
    given = os.path.normpath(str(path))
    real = os.path.realpath(given)
    return PathView((given,) if real == given else (given, real), os.path.isdir(real))


@dataclass(frozen=True)
class PathPattern:
    base: Path
    spec: pathspec.GitIgnoreSpec
    text: str

    def match(self, path: Path | PathView) -> bool:
        """Whether `path` (absolute) or, for a directory, what is inside it, matches."""
        view = path if isinstance(path, PathView) else path_view(path)
        base = str(self.base).rstrip("/") + "/"
        for spelling in view.spellings:
            if spelling + "/" == base:
                rel = ""
            elif spelling.startswith(base):
                rel = spelling[len(base) :]
            else:
                continue
            probes = [rel] if rel else []
            if view.is_dir:  # a listing or search of a directory reads what is in it
                probes.append(f"{rel}/\x00" if rel else "\x00")
            if any(self.spec.match_file(p) for p in probes):
                return True
        return False


@dataclass(frozen=True)
class Rule:
    """One compiled rule. `tool` is ours (`bash`, `read`, …) or an MCP name (`mcp__git`)."""

    kind: RuleKind
    text: str
    tool: str
    command: CommandPattern | None = None
    path: PathPattern | None = None
    source: SettingsSource | None = None
    where: str = ""

    def origin(self) -> str:
        """`permissions.deny[0] in /w/.ink/settings.json` (or `this session`)."""
        if self.source is None:
            return "this session"
        return f"{self.where} in {self.source.path}" if self.where else self.source.path

    def describe(self) -> str:
        return f'{self.kind} rule "{self.text}" ({self.origin()})'

    def names_tool(self, name: str) -> bool:
        """A rule without a specifier that covers the tool `name` entirely."""
        if self.command is not None or self.path is not None:
            return False
        if self.tool.startswith("mcp__"):
            stem = self.tool.removesuffix("__*")
            return name == stem or name.startswith(stem + "__")
        if self.tool == "edit":  # Edit covers every tool that changes files
            return name in ("edit", "write")
        return name == self.tool


def _path_pattern(spec: str, cwd: Path) -> PathPattern:
    if spec.startswith("//"):
        base, pattern = Path("/"), spec[1:]
    elif spec.startswith("~/"):
        base, pattern = Path.home(), spec[1:]
    elif spec.startswith("./"):
        base, pattern = cwd, spec[1:]  # anchored at the workspace root
    else:
        base, pattern = cwd, spec  # `/x` anchored, `x` anywhere below (gitignore)
    if not pattern.strip("/"):
        pattern = "**"
    import pathspec

    return PathPattern(base, pathspec.GitIgnoreSpec.from_lines([pattern]), spec)


def _command_pattern(spec: str) -> CommandPattern:
    prefix = False
    body = spec.strip()
    if body.endswith(":*"):
        prefix, body = True, body[:-2]
    try:
        words = shlex.split(body)
    except ValueError as exc:
        raise RuleSyntaxError(f"the command cannot be split into words: {exc}") from None
    if words and words[-1] == "*":
        prefix, words = True, words[:-1]
    if not words:
        raise RuleSyntaxError("the command is empty (use the bare tool name for every command)")
    return CommandPattern(tuple(words), prefix)


def compile_rule(
    kind: RuleKind,
    text: str,
    cwd: Path,
    *,
    source: SettingsSource | None = None,
    where: str = "",
) -> Rule:
    """One rule as written; raises `RuleSyntaxError`."""
    match = _RULE.match(text.strip())
    if match is None:
        raise RuleSyntaxError(f'"{text}" is not of the form Tool or Tool(specifier)')
    name, spec = match.group("tool"), match.group("spec")
    if name.startswith("mcp__"):
        if spec is not None:
            raise RuleSyntaxError(f'"{text}": MCP rules take no specifier')
        return Rule(kind, text, name, source=source, where=where)
    tool = TOOL_NAMES.get(name.lower())
    if tool is None:
        known = "Bash, Read, Edit, Write, Grep, Glob, LS, Task, TodoWrite, mcp__<server>"
        raise RuleSyntaxError(f'"{text}": unknown tool {name!r} (one of {known})')
    if spec is None or spec.strip() in ("", "*"):
        return Rule(kind, text, tool, source=source, where=where)
    if tool == "bash":
        return Rule(kind, text, tool, command=_command_pattern(spec), source=source, where=where)
    if tool in PATH_KINDS:
        path = _path_pattern(spec.strip(), cwd)
        return Rule(kind, text, tool, path=path, source=source, where=where)
    raise RuleSyntaxError(f'"{text}": {name} rules take no specifier')


def compile_entry(entry: RuleEntry, cwd: Path) -> Rule:
    return compile_rule(entry.kind, entry.text, cwd, source=entry.source, where=entry.where)

"""Deciding one call by the rules: deny > ask > allow, else the approval mode decides.

A command is allowed only when every command it runs is (pipes, lists, subshells,
substitutions, what `sudo`/`env`/`sh -c`/`eval` run) and every file its redirects write is;
deny and ask rules match any one of them, seen through wrappers, assignment prefixes, quoting
and paths (`/bin/rm` is `rm`). A path rule of `Read`/`Edit`/`Write` applies to every tool that
touches the path, and to the known path arguments of commands. What the parser cannot resolve
asks whenever a deny or ask rule might match it. Pure: nothing here runs or asks.
"""

from __future__ import annotations

import os
import posixpath
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ink_ls.core.settings_files import RuleEntry, RuleKind, SettingsProblem
from ink_ls.core.tool import Access
from ink_ls.rules.recursive import holds_match, recursive_roots
from ink_ls.rules.shell import WRAPPERS, ParsedCommand, SimpleCommand, parse_command
from ink_ls.rules.syntax import (
    PathView,
    Rule,
    RuleSyntaxError,
    compile_entry,
    compile_rule,
    path_view,
)

_RISKY_ASSIGNMENTS = ("LD_", "DYLD_", "PATH=", "BASH_ENV=", "ENV=", "IFS=", "SHELLOPTS=", "PS4=")
"""Assignment prefixes that change what a command runs: `X=1 npm test` is `npm test` for an
allow rule, `LD_PRELOAD=x npm test` is not."""


@dataclass(frozen=True)
class Decision:
    """What the rules say about a call: `kind` None means no rule decides (the mode does)."""

    kind: Literal["allow", "ask", "deny"] | None
    rule: Rule | None = None
    detail: str = ""

    def reason(self) -> str:
        """The sentence the model reads when a rule refused or asked about a call."""
        if self.rule is None:
            return self.detail
        what = f" matches {self.detail}" if self.detail else ""
        return f"{self.rule.describe()}{what}"


@dataclass
class CallFacts:
    """What one call does, as far as the rules care."""

    tool: str
    reads: list[Path]
    writes: list[Path | None]
    command: ParsedCommand | None = None
    cwd: Path = Path(".")
    views: dict[Path, PathView] = field(default_factory=dict)

    def view(self, path: Path) -> PathView:
        """`path` as path rules see it, looked up once per call."""
        found = self.views.get(path)
        if found is None:
            found = self.views[path] = path_view(path)
        return found


def _program_views(cmd: SimpleCommand) -> list[tuple[str | None, ...]]:
    """The words as written and, for a program named by path, with its base name."""
    views = [cmd.words]
    if cmd.program is not None and "/" in cmd.program:
        views.append((posixpath.basename(cmd.program), *cmd.words[1:]))
    return views


def _path_args(cmd: SimpleCommand, cwd: Path) -> list[Path]:
    """The known words of a command that may be paths (not options), resolved against `cwd`."""
    out = []
    for word in cmd.words[1:]:
        if word is None or not word or word.startswith("-"):
            continue
        out.append(cwd / os.path.expanduser(word))
    return out


def facts_of(tool: str, access: Access | None, command: str | None, cwd: Path) -> CallFacts:
    """The facts of a call of `tool` touching `access` (a bash `command` is parsed)."""
    reads = sorted(access.reads) if access is not None else []
    writes: list[Path | None] = list(sorted(access.writes)) if access is not None else []
    parsed = None
    if command is not None:
        parsed = parse_command(command)
        for cmd in parsed.all_commands():
            reads += _path_args(cmd, cwd)
        reads += [cwd / os.path.expanduser(w) for w in parsed.reads if w]
        writes += [cwd / os.path.expanduser(w) if w else None for w in parsed.writes]
    return CallFacts(tool, reads, writes, parsed, cwd)


@dataclass
class Policy:
    """Compiled rules; `problems` lists rules that could not be understood (file and path)."""

    rules: list[Rule] = field(default_factory=list)
    problems: list[SettingsProblem] = field(default_factory=list)

    @classmethod
    def from_entries(cls, entries: Iterable[RuleEntry], cwd: Path) -> Policy:
        policy = cls()
        for entry in entries:
            try:
                policy.rules.append(compile_entry(entry, cwd))
            except RuleSyntaxError as exc:
                policy.problems.append(SettingsProblem(entry.source.path, entry.where, str(exc)))
        return policy

    def add(self, kind: RuleKind, text: str, cwd: Path) -> None:
        """A rule of this session (an answer "always in this project" applies at once)."""
        self.rules.append(compile_rule(kind, text, cwd))

    def of_kind(self, kind: RuleKind) -> list[Rule]:
        return [r for r in self.rules if r.kind == kind]

    def hides_read(self, path: Path) -> bool:
        """Whether a `Read` deny rule covers `path` (absolute): listings and searches of a
        directory above it leave it out."""
        view = path_view(path)
        return any(r.path is not None and r.path.match(view) for r in self._read_denies())

    def has_read_denies(self) -> bool:
        """Whether any `Read(path)` deny rule is in force."""
        return bool(self._read_denies())

    def _read_denies(self) -> list[Rule]:
        return [r for r in self.rules if r.kind == "deny" and r.tool == "read"]

    def decide(self, tool: str, access: Access | None, command: str | None, cwd: Path) -> Decision:
        """deny > ask (also: a deny or ask rule the parser cannot rule out) > allow > None."""
        facts = facts_of(tool, access, command, cwd)
        unsure: Decision | None = None
        for kind in ("deny", "ask"):
            for rule in self.of_kind(kind):
                hit, detail = _matches(rule, facts)
                if hit is True:
                    return Decision(kind, rule, detail)
                if hit is None and unsure is None:
                    unsure = Decision("ask", rule, detail)
        if unsure is not None:
            return unsure
        allowed = _allowed_by(self.of_kind("allow"), facts, cwd)
        if allowed is not None:
            return allowed
        return Decision(None)

    def suggest(
        self, tool: str, access: Access | None, command: str | None, cwd: Path
    ) -> list[str]:
        """The rules an answer "always in this project" saves for this call (none when the
        call cannot be named exactly, e.g. a command built from a variable)."""
        facts = facts_of(tool, access, command, cwd)
        allow = self.of_kind("allow")
        if facts.command is not None:
            parsed = facts.command
            if parsed.unresolved:
                return []
            out = []
            for cmd in parsed.commands:
                if _command_allowed(cmd, allow):
                    continue
                if any(w is None for w in cmd.words) or not cmd.words:
                    return []
                out.append(f"Bash({shlex.join([w or '' for w in cmd.words])})")
            for path in facts.writes:
                if path is None:
                    return []
                if not _path_allowed(path, allow, "write"):
                    out.append(f"Edit({_rule_path(path, cwd)})")
            return out
        if tool.startswith("mcp__"):
            return [tool]
        if facts.writes:
            return [f"Edit({_rule_path(p, cwd)})" for p in facts.writes if p is not None]
        if facts.reads:
            return [f"Read({_rule_path(p, cwd)})" for p in facts.reads]
        return []


def _rule_path(path: Path, cwd: Path) -> str:
    try:
        rel = path.relative_to(cwd).as_posix()
        text = f"./{rel}"
    except ValueError:
        text = "/" + path.as_posix()
    return text + "/**" if path.is_dir() else text


def _matches(rule: Rule, facts: CallFacts) -> tuple[bool | None, str]:
    """Whether a deny/ask rule covers any part of the call: True, False or None (unknown)."""
    if rule.names_tool(facts.tool):
        return True, ""
    if rule.path is not None:
        paths: list[Path | None] = list(facts.reads)
        if rule.tool in ("edit", "write"):  # a change rule: what is written, and named paths
            paths = facts.writes + (paths if facts.command is not None else [])
        open_ended = False
        for path in paths:
            if path is None:
                open_ended = True
            elif rule.path.match(facts.view(path)):
                return True, str(path)
        if rule.tool == "read" and facts.command is not None:
            for cmd in facts.command.all_commands():
                for root in recursive_roots(cmd, facts.cwd):
                    if holds_match(root, rule.path):
                        return True, f"`{cmd.text}` (it reads {root}, which holds such paths)"
        return (None, "a redirect to a file named by an expansion") if open_ended else (False, "")
    if rule.command is not None and facts.command is not None:
        parsed = facts.command
        unknown: str | None = "; ".join(parsed.unresolved) or None
        for cmd in parsed.all_commands():
            for words in _program_views(cmd):
                hit = rule.command.match(words)
                if hit is True:
                    return True, f"`{cmd.text}`"
                if hit is None:
                    unknown = unknown or f"`{cmd.text}`, whose words are not all literal"
        if unknown is not None:
            return None, f"a command it cannot check ({unknown})"
    return False, ""


def _command_allowed(cmd: SimpleCommand, allow: list[Rule]) -> bool:
    risky = any(a.startswith(_RISKY_ASSIGNMENTS) for a in cmd.assignments)
    if not risky:
        for rule in allow:
            if rule.names_tool("bash"):
                return True
            if rule.command is not None and rule.command.match(cmd.words) is True:
                return True
    program = posixpath.basename(cmd.program or "")
    if cmd.inner and program in WRAPPERS | {"eval", "sh", "bash", "dash", "zsh", "ksh"}:
        # a wrapper that changes nothing but what runs: allowed when what it runs is
        return program != "sudo" and all(_command_allowed(i, allow) for i in cmd.inner)
    return False


def _path_allowed(path: Path | PathView, allow: list[Rule], how: Literal["read", "write"]) -> bool:
    kinds = ("read", "edit", "write") if how == "read" else ("edit", "write")
    return any(r.path is not None and r.tool in kinds and r.path.match(path) for r in allow)


def _allowed_by(allow: list[Rule], facts: CallFacts, cwd: Path) -> Decision | None:
    for rule in allow:
        if rule.names_tool(facts.tool):
            return Decision("allow", rule)
    if facts.command is not None:
        parsed = facts.command
        if parsed.unresolved or not parsed.commands:
            return None
        if not all(_command_allowed(c, allow) for c in parsed.commands):
            return None
        if any(p is None or not _path_allowed(facts.view(p), allow, "write") for p in facts.writes):
            return None
        return Decision("allow", None, "every command is allowed by a rule")
    if not facts.reads and not facts.writes:
        return None
    written = {p for p in facts.writes if p is not None}
    if not all(_path_allowed(facts.view(p), allow, "write") for p in written):
        return None
    if not all(p in written or _path_allowed(facts.view(p), allow, "read") for p in facts.reads):
        return None
    return Decision("allow", None, "every path is allowed by a rule")

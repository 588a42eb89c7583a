"""The user's permission rules as the approval gate consults them: one `Permissions` per
session, built from the merged settings files (`core.settings_files`), with the answers
"always in this project" saved into `.ink/settings.local.json` and applied at once.

It decides and suggests; it never asks anyone (the gate does).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ink_ls.agent.gate import GateRequest
from ink_ls.core.local_rules import LocalRulesError, add_local_rule
from ink_ls.core.settings_files import Settings, SettingsProblem, load_settings
from ink_ls.core.tool import Access
from ink_ls.core.trust import WorkspaceTrust
from ink_ls.rules.policy import Decision, Policy
from ink_ls.rules.syntax import RuleSyntaxError


def _command_of(request: GateRequest) -> str | None:
    """The command line of a call that runs one (the bash tool); None for other tools."""
    if request.tool.name != "bash":
        return None
    command = getattr(request.args, "command", None)
    return command if isinstance(command, str) else None


def _access_of(request: GateRequest) -> Access | None:
    try:
        return request.tool.access(request.args, request.cwd)
    except Exception:  # a tool that cannot say what it touches: rules see only its name
        return None


def read_only(request: GateRequest) -> bool:
    """Whether a call only reads (what plan mode lets run): it declares what it touches and
    writes nothing, or it hands work to a sub-agent whose calls pass this gate too."""
    if request.tool.delegates:
        return True
    access = _access_of(request)
    return access is not None and not access.writes and _command_of(request) is None


@dataclass
class Permissions:
    """The rules of one session. `problems` are the settings' and the rules' own (each
    names its file and JSON path), for the front end to show once."""

    policy: Policy
    problems: list[SettingsProblem] = field(default_factory=list)
    saved: list[tuple[str, Path]] = field(default_factory=list)
    """Rules saved "always in this project" in this session, and the file."""

    @classmethod
    def from_settings(cls, settings: Settings, cwd: Path) -> Permissions:
        """The rules of `settings` (load them with `load_project_settings`)."""
        policy = Policy.from_entries(settings.rules, cwd)
        return cls(policy, [*settings.problems, *policy.problems])

    def hidden(self) -> Callable[[Path], bool] | None:
        """What the `Read` deny rules hide from listings and searches; None: nothing."""
        return self.policy.hides_read if self.policy.has_read_denies() else None

    def decide(self, request: GateRequest) -> Decision:
        return self.policy.decide(
            request.tool.name, _access_of(request), _command_of(request), request.cwd
        )

    def suggest(self, request: GateRequest) -> list[str]:
        return self.policy.suggest(
            request.tool.name, _access_of(request), _command_of(request), request.cwd
        )

    def save(self, rules: Sequence[str], cwd: Path) -> str | None:
        """Write `rules` as allow rules of the project's local file and apply them now;
        returns None, or the reason they could not be saved (they still apply now)."""
        problem = None
        for rule in rules:
            try:
                self.policy.add("allow", rule, cwd)
            except RuleSyntaxError as exc:
                return str(exc)
            try:
                self.saved.append((rule, add_local_rule(cwd, rule)))
            except LocalRulesError as exc:
                problem = str(exc)
        return problem


def trust_covers(trust: WorkspaceTrust) -> Callable[[str, bytes], bool]:
    """The workspace trust as the settings loader asks it: is this project file, with these
    bytes, covered (trusted, and unchanged since)?"""

    def covers(name: str, data: bytes) -> bool:
        return trust.covers(name, hashlib.sha256(data).hexdigest())

    return covers


def load_project_settings(
    cwd: Path, trust: WorkspaceTrust, *, editor: Mapping[str, Any] | None = None
) -> Settings:
    """Every settings file of `cwd`, its project files widening only as far as `trust` covers
    them (resolve the trust first: an undecided workspace is not trusted)."""
    return load_settings(cwd, trusted=trust_covers(trust), editor=editor)


def session_rules(cwd: Path, trust: WorkspaceTrust, warn: Callable[[str], object]) -> Permissions:
    """The rules of a session in `cwd` (after its trust is resolved); each problem is passed
    to `warn` (a front end without a place to show them logs them)."""
    permissions = Permissions.from_settings(load_project_settings(cwd, trust), cwd)
    for problem in permissions.problems:
        warn(f"{problem}; the rest of the settings apply")
    return permissions

"""The user's permission rules as the approval gate consults them: one `Permissions` per
session, built from the merged settings files (`core.settings_files`), with the answers
"always in this project" saved into `.ink/settings.local.json` and applied at once.

It decides and suggests; it never asks anyone (the gate does).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ink_ls.agent.gate import GateRequest
from ink_ls.core.local_rules import LocalRulesError, add_local_rule
from ink_ls.core.settings_files import Settings, SettingsProblem
from ink_ls.core.tool import Access
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
        policy = Policy.from_entries(settings.rules, cwd)
        return cls(policy, [*settings.problems, *policy.problems])

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


def workspace_trusted(cwd: Path, *, stated: bool = False) -> bool:
    """Whether the project's own settings files may widen anything in `cwd` (its allow rules,
    hooks, defaultMode): the one trust decision of the workspace. Until the workspace trust
    gate decides it, only the user's explicit statement (`--trust-workspace`) trusts."""
    return stated

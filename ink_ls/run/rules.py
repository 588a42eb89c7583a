"""The settings files and permission rules of one `ink-ls run`: loaded once at the start, their
problems and what an untrusted workspace was refused said on stderr, the approval mode chosen
(`--approval` beats `defaultMode`), and what happens when a question has no terminal to go to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console, RenderableType

from ink_ls.agent.approval import ApprovalMode, Choice
from ink_ls.agent.permissions import Permissions, load_project_settings
from ink_ls.core.settings_files import Settings, load_settings
from ink_ls.core.signal import CancelSignal
from ink_ls.core.trust import WorkspaceTrust


@dataclass
class RunRules:
    settings: Settings
    permissions: Permissions
    mode: ApprovalMode


def _default(interactive: bool) -> ApprovalMode:
    return "ask" if interactive else "readonly"


def first_mode(cwd: Path, *, approval: ApprovalMode | None, interactive: bool) -> ApprovalMode:
    """The mode before the workspace trust is decided (it may decide whether to ask):
    `--approval`, else the user's own `defaultMode`, else the default."""
    return approval or load_settings(cwd, trusted=False).default_mode or _default(interactive)


def load_run_rules(
    cwd: Path,
    trust: WorkspaceTrust,
    *,
    approval: ApprovalMode | None,
    interactive: bool,
    err: Console,
) -> RunRules:
    """Load and report the settings files (the workspace's as far as `trust` covers them);
    the mode is `--approval`, else the files' `defaultMode`, else `ask` on a terminal and
    `readonly` without one."""
    settings = load_project_settings(cwd, trust)
    permissions = Permissions.from_settings(settings, cwd)
    for problem in permissions.problems:
        err.print(f"ink-ls run: {problem}; the rest of the settings apply", markup=False)
    if settings.ignored:
        err.print(
            "ink-ls run: the workspace is not trusted, so its settings files widen nothing: "
            + "; ".join(settings.ignored),
            style="yellow",
            markup=False,
        )
    mode: ApprovalMode = approval or settings.default_mode or _default(interactive)
    return RunRules(settings, permissions, mode)


class NoTerminalAsker:
    """Stands in for the terminal's asker when stdin is not a terminal: the first question
    ends the run (exit status 2) instead of being asked; `needed` says which it was."""

    def __init__(self, stop: Callable[[str], None]) -> None:
        self._stop = stop
        self.needed: str | None = None

    async def ask(
        self,
        title: str,
        body: RenderableType | None,
        signal: CancelSignal,
        *,
        project_rules: tuple[str, ...] = (),
        keys: str | None = None,
    ) -> Choice | None:
        if self.needed is None:
            self.needed = title
            self._stop(f"a question with no terminal to ask on: {title}")
        return None

    def usage_message(self, mode: ApprovalMode) -> str:
        return (
            f"--approval {mode} needs a terminal to ask on (stdin is not one), and no permission "
            f"rule decides this call: {self.needed}. Add a rule (permissions.allow or "
            "permissions.deny in .ink/settings.json) or use --approval auto or --approval readonly"
        )

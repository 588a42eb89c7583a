"""The approval mode of one `ink-ls run` before the workspace trust is decided (`--approval`
beats `defaultMode`; the turn builder applies a trusted project's), and what happens when a
question has no terminal to go to (the run ends with exit status 2).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import RenderableType

from ink_ls.agent.approval import Choice
from ink_ls.core.config import ApprovalMode
from ink_ls.core.settings_files import load_settings
from ink_ls.core.signal import CancelSignal


def _default(interactive: bool) -> ApprovalMode:
    return "ask" if interactive else "readonly"


def first_mode(cwd: Path, *, approval: ApprovalMode | None, interactive: bool) -> ApprovalMode:
    """The mode before the workspace trust is decided (it may decide whether to ask):
    `--approval`, else the user's own `defaultMode`, else the default."""
    return approval or load_settings(cwd, trusted=False).default_mode or _default(interactive)


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

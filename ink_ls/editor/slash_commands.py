"""`ink/commands`: the slash commands for the editors' completion (`agent.commands`)."""

from __future__ import annotations

from pathlib import Path

from ink_ls.agent.commands import available_commands
from ink_ls.protocol.models import CommandEntry, CommandsResult


def commands_result(cwd: Path, home: Path | None = None) -> CommandsResult:
    """The built-ins, then the workspace's and the user's prompt files, by name."""
    return CommandsResult(
        commands=[
            CommandEntry(
                name=c.name,
                description=c.description,
                argument_hint=c.argument_hint,
                source=c.source,
            )
            for c in available_commands(cwd, home)
        ]
    )

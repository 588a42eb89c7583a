"""The slash commands (built-ins and prompt files, `agent.commands`) announced over ACP."""

from __future__ import annotations

from pathlib import Path

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from ink_ls.agent.commands import available_commands


def acp_commands(cwd: Path) -> list[AvailableCommand]:
    """One `AvailableCommand` per built-in and prompt file, in `ink/commands`'s order."""
    return [
        AvailableCommand(
            name=c.name,
            description=c.description,
            input=(
                AvailableCommandInput(root=UnstructuredCommandInput(hint=c.argument_hint))
                if c.argument_hint
                else None
            ),
        )
        for c in available_commands(cwd)
    ]

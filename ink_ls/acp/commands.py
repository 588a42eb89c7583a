"""The workspace's and user's prompt files announced over ACP as available commands."""

from __future__ import annotations

from pathlib import Path

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from ink_ls.agent.slash import prompt_commands


def prompt_file_commands(cwd: Path, taken: set[str]) -> list[AvailableCommand]:
    """One `AvailableCommand` per prompt file (`agent.slash`), by name, less `taken` names
    (built-in commands win: `/rewind` is ours)."""
    return [
        AvailableCommand(
            name=name,
            description=command.description or f"prompt file {command.path.name}",
            input=(
                AvailableCommandInput(root=UnstructuredCommandInput(hint=command.argument_hint))
                if command.argument_hint
                else None
            ),
        )
        for name, command in sorted(prompt_commands(cwd).items())
        if name not in taken
    ]

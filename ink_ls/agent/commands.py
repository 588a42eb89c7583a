"""The slash commands a user can type in every front end: the built-ins and the prompt files.

One list (`available_commands`) feeds the editor's `ink/commands`, ACP's
`available_commands_update` and the terminal; each entry says where it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ink_ls.agent.slash import prompt_commands

BUILTIN = "builtin"


@dataclass(frozen=True)
class CommandInfo:
    """One `/name` as completion shows it."""

    name: str
    description: str
    argument_hint: str = ""
    source: str = BUILTIN
    """`builtin`, or the prompt file: relative to the workspace, `~/…` under the home folder."""


BUILTINS: tuple[CommandInfo, ...] = (
    CommandInfo(
        "compact",
        "Summarise the conversation so far to free the model's context window",
    ),
    CommandInfo(
        "clear",
        "Start a fresh conversation: the model no longer sees the earlier messages",
    ),
    CommandInfo(
        "rewind",
        "Restore files and conversation to before turn N (no N: list the turns)",
        "N [files|conversation] [force]",
    ),
)
BUILTIN_NAMES = frozenset(c.name for c in BUILTINS)


def _shown(path: Path, cwd: Path, home: Path) -> str:
    for root, prefix in ((cwd, ""), (home, "~/")):
        try:
            return prefix + path.relative_to(root).as_posix()
        except ValueError:
            continue
    return str(path)


def available_commands(cwd: Path, home: Path | None = None) -> list[CommandInfo]:
    """The built-ins, then every prompt file by name (a prompt file named like a built-in
    is hidden: the built-in wins)."""
    home = home if home is not None else Path.home()
    files = [
        CommandInfo(
            name,
            command.description or f"prompt file {command.path.name}",
            command.argument_hint,
            _shown(command.path, cwd, home),
        )
        for name, command in sorted(prompt_commands(cwd, home).items())
        if name not in BUILTIN_NAMES
    ]
    return [*BUILTINS, *files]


def builtin_call(text: str) -> tuple[str, str] | None:
    """(`name`, arguments) when `text` is a built-in command (`/compact`, `/clear`, `/rewind 2`),
    else None."""
    words = text.strip().split(maxsplit=1)
    if not words or not words[0].startswith("/") or words[0][1:] not in BUILTIN_NAMES:
        return None
    return words[0][1:], words[1] if len(words) > 1 else ""

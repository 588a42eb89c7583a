"""The project's and user's prompt files as slash commands: `/review src/` becomes the file's body.

Read from `.ink/commands/*.md`, `.claude/commands/*.md`, `.github/prompts/*.prompt.md` and
`.gemini/commands/*.toml` in the workspace, then the same under the home directory; applied
once where every front end starts a turn (`user_turn.run_turn`).
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

_SOURCES = (
    (".ink/commands", ".md"),
    (".claude/commands", ".md"),
    (".github/prompts", ".prompt.md"),
    (".gemini/commands", ".toml"),
)
"""In precedence order: on a name clash the first wins (and the project beats the user)."""
_CALL = re.compile(r"/([\w.-]+(?::[\w.-]+)*)(?:\s+(.*))?", re.DOTALL)
_POSITIONAL = re.compile(r"\$([1-9])")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


@dataclass(frozen=True)
class PromptCommand:
    """One prompt file: `/name`, what it says about itself, and the body the model gets."""

    name: str
    body: str
    path: Path
    description: str = ""
    argument_hint: str = ""


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """(`key: value` pairs of a leading `---` block, the rest): front matter never reaches
    the model."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return {}, text
    fields: dict[str, str] = {}
    for line in match.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and not line.startswith((" ", "\t")):
            fields[key.strip().lower()] = value.strip().strip("'\"")
    return fields, text[match.end() :]


def _read(path: Path, name: str) -> PromptCommand | None:
    """The command in `path`, or None when it cannot be read or has no prompt."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if path.suffix == ".toml":
        try:
            data = tomllib.loads(raw)
        except tomllib.TOMLDecodeError:
            return None
        prompt = data.get("prompt")
        if not isinstance(prompt, str):
            return None
        description = data.get("description")
        return PromptCommand(
            name, prompt, path, description if isinstance(description, str) else ""
        )
    fields, body = _front_matter(raw)
    return PromptCommand(
        name,
        body.strip("\n"),
        path,
        fields.get("description", ""),
        fields.get("argument-hint", ""),
    )


def _scan(base: Path, suffix: str) -> dict[str, Path]:
    """`name` → file for every `*<suffix>` under `base`; subfolders namespace (`git:commit`)."""
    found: dict[str, Path] = {}
    if not base.is_dir():
        return found
    for path in sorted(base.rglob(f"*{suffix}")):
        if not path.is_file():
            continue
        parts = path.relative_to(base).as_posix()[: -len(suffix)].split("/")
        found.setdefault(":".join(parts), path)
    return found


def prompt_commands(cwd: Path, home: Path | None = None) -> dict[str, PromptCommand]:
    """Every prompt command of the workspace and the user, name → command, by precedence:
    project over user, then `.ink` > `.claude` > `.github` > `.gemini`."""
    roots = [cwd, home if home is not None else Path.home()]
    commands: dict[str, PromptCommand] = {}
    for root in dict.fromkeys(roots):  # the workspace may be the home directory
        for folder, suffix in _SOURCES:
            for name, path in _scan(root / folder, suffix).items():
                if name not in commands:
                    command = _read(path, name)
                    if command is not None:
                        commands[name] = command
    return commands


def substitute(body: str, arguments: str) -> str:
    """`$ARGUMENTS`, `{{args}}` and `$1`…`$9` filled in; a body with none of them gets
    `ARGUMENTS: …` appended (when there are arguments)."""
    if "$ARGUMENTS" not in body and "{{args}}" not in body and not _POSITIONAL.search(body):
        return f"{body}\n\nARGUMENTS: {arguments}" if arguments else body
    try:
        words = shlex.split(arguments)
    except ValueError:  # an unbalanced quote: plain words then
        words = arguments.split()
    body = body.replace("$ARGUMENTS", arguments).replace("{{args}}", arguments)
    return _POSITIONAL.sub(
        lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", body
    )


def expand_prompt(text: str, cwd: Path, home: Path | None = None) -> str:
    """`text` with a leading `/name args` replaced by that prompt file's body; anything else
    (an unknown name included) is returned as typed."""
    match = _CALL.fullmatch(text.strip())
    if match is None:
        return text
    command = prompt_commands(cwd, home).get(match.group(1))
    if command is None:
        return text
    return substitute(command.body, (match.group(2) or "").strip())

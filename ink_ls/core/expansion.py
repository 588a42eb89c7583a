"""`${VAR}` and `${VAR:-default}` in configuration files, and which variables each may expand.

A file of the user's own (their `mcp.json`, the editor's settings) may expand any variable but
the model's API key. A project file (a workspace `.mcp.json`, project settings) was written by
whoever wrote the repository: it may expand only the variables the user allowed in their own
settings (`allowedEnv` in `$XDG_CONFIG_HOME/ink-ls/settings.json`) and those the caller names
(an MCP server's own `env` block); any other `${VAR}` stays as written, with a warning.
Nothing here logs or returns a variable's value except as the expansion itself.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
ALLOW_KEY = "allowedEnv"
"""The user settings' list of variables project files may expand."""


def user_settings_path(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/ink-ls/settings.json` (default `~/.config/ink-ls/settings.json`)."""
    source = os.environ if env is None else env
    base = source.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ink-ls" / "settings.json"


def _read_allow_list() -> frozenset[str]:
    path = user_settings_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return frozenset()
    except (OSError, ValueError) as exc:
        log.warning("%s: cannot be read (%s); project files expand no variables", path, exc)
        return frozenset()
    raw = data.get(ALLOW_KEY, []) if isinstance(data, Mapping) else []
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        log.warning("%s: %s must be a list of variable names; ignored", path, ALLOW_KEY)
        return frozenset()
    return frozenset(raw)


user_allowed_env: Callable[[], frozenset[str]] = _read_allow_list
"""The variables the user lets project files expand (read from their settings on each call).
The one seam to point at a shared settings loader."""


@dataclass
class Expander:
    """Expands the strings of one configuration entry and remembers what it could not."""

    env: Mapping[str, str]
    allowed: Collection[str] | None
    """Names that may expand; None: every name (the user's own files)."""
    secret: Collection[str] = ()
    """Names that never expand (the model's API key variables)."""
    missing: list[str] = field(default_factory=list)
    """Allowed names that are not set (and have no default)."""
    refused: list[str] = field(default_factory=list)
    """Names left as written: not allowed, or secret."""

    def __call__(self, text: str) -> str:
        def sub(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in self.secret or (self.allowed is not None and name not in self.allowed):
                self.refused.append(name)
                return match.group(0)
            if name in self.env:
                return self.env[name]
            if default is not None:
                return default
            self.missing.append(name)
            return ""

        return _VAR.sub(sub, text)

    def warning(self, project: bool) -> str | None:
        """One sentence on the variables left as written, or None."""
        if not self.refused:
            return None
        names = ", ".join(f"${{{n}}}" for n in dict.fromkeys(self.refused))
        secret = [n for n in self.refused if n in self.secret]
        if secret and len(secret) == len(self.refused):
            return f"{names} left as written: the model's API key is never passed on"
        if project:
            return (
                f"{names} left as written: a project file may expand only the variables "
                f'named in "{ALLOW_KEY}" of {user_settings_path()} (or in the server\'s own '
                '"env")'
            )
        return f"{names} left as written: the model's API key is never passed on"


def names_in(text: str) -> list[str]:
    """The variable names `text` refers to."""
    return [m.group(1) for m in _VAR.finditer(text)]

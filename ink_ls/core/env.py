"""What the environment says before any settings model is built: the API key variables and
the state directory. Plain Python, so the start-up path can read them without pydantic."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

API_KEY_VARS: tuple[str, ...] = ("INK_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")
"""The API key variables, read in this order (`ANTHROPIC_API_KEY` only for Anthropic,
`OPENAI_API_KEY` for every other provider); commands never inherit any of them."""


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where ink-ls keeps state: `$INK_STATE_DIR`, else `$XDG_STATE_HOME/ink-ls`,
    else `~/.local/state/ink-ls`. Not created here."""
    source = os.environ if env is None else env
    explicit = source.get("INK_STATE_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    xdg = source.get("XDG_STATE_HOME", "").strip()
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "ink-ls"
    return Path.home() / ".local" / "state" / "ink-ls"

"""Hooks and sandbox of a session, from the merged settings files (`core.settings_files`).

Hooks of every file run; a project's hooks, and a project widening the sandbox, only once the
workspace is trusted (the loader leaves them out otherwise and says so). The sandbox also keeps
the paths of `Read`/`Edit` deny rules unreadable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ink_ls.core.settings_files import HookEntry, Settings, load_settings
from ink_ls.hooks.engine import Hooks
from ink_ls.tools.sandbox import SandboxSettings, availability

_PATH_RULE = re.compile(r"^(?:Read|Edit)\((.+)\)$")
_GLOB = re.compile(r"[*?\[]")


@dataclass
class SessionSettings:
    """Hooks and sandbox for a session, and lines for the user (problems, what was ignored)."""

    hooks: list[HookEntry] = field(default_factory=list)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    notes: list[str] = field(default_factory=list)


def deny_paths(settings: Settings) -> list[str]:
    """The fixed part of each `Read(…)`/`Edit(…)` deny rule's path (`./secrets/**` → `secrets`)."""
    found = []
    for rule in settings.rules:
        match = _PATH_RULE.match(rule.text) if rule.kind == "deny" else None
        if match is None:
            continue
        path = match.group(1).strip()
        path = path[2:] if path.startswith("//") else path  # Claude Code: `//abs` is absolute
        fixed = _GLOB.split(path, maxsplit=1)[0].rstrip("/")
        if fixed and fixed not in (".", "~", "/"):
            found.append(fixed)
    return found


def load_session_settings(cwd: Path, *, trusted: bool) -> SessionSettings:
    """Every file's hooks (the project's only when `trusted`) and the merged sandbox."""
    return session_settings(load_settings(cwd, trusted=trusted))


def session_settings(merged: Settings) -> SessionSettings:
    """The hooks and the sandbox of already merged settings files."""
    box = merged.sandbox
    return SessionSettings(
        hooks=list(merged.hooks),
        sandbox=SandboxSettings(
            enabled=box.enabled,
            network=box.network,
            writable=tuple(box.writable),
            deny_read=tuple(deny_paths(merged)),
        ),
        notes=[str(p) for p in merged.problems] + [f"ignored: {line}" for line in merged.ignored],
    )


def sandbox_line(settings: SandboxSettings) -> str | None:
    """One line for the user about the command sandbox, or None when it is off."""
    if not settings.enabled:
        return None
    found = availability()
    if not found.ok:
        return (
            f"sandbox: enabled but unavailable here ({found.problem}); commands are not "
            "sandboxed and ask for approval"
        )
    network = "network allowed" if settings.network else "no network"
    return f"sandbox: commands run in {found.mechanism} ({network})"


def session_hooks(
    entries: list[HookEntry],
    *,
    cwd: Path,
    session_id: str,
    secret_env: tuple[str, ...],
    transcript_path: str | None = None,
) -> Hooks | None:
    """The session's `Hooks`, or None when no hook is configured."""
    if not entries:
        return None
    return Hooks(
        entries,
        cwd=cwd,
        session_id=session_id,
        secret_env=secret_env,
        transcript_path=transcript_path,
    )

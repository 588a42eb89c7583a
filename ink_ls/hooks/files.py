"""The `hooks` and `sandbox` sections of the settings files, for one session.

Files: the user's `$XDG_CONFIG_HOME/ink-ls/settings.json`, then the project's
`.claude/settings.json`, `.claude/settings.local.json`, `.ink/settings.json` and
`.ink/settings.local.json`. Hooks of every file run; a project's hooks only once the workspace
is trusted (they are programs from the repository). A bad file or section is reported (file
and JSON path) and the rest loads.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ink_ls.hooks.config import HookEntry, parse_hooks
from ink_ls.hooks.engine import Hooks
from ink_ls.tools.sandbox import SandboxSettings, availability

PROJECT_FILES = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".ink/settings.json",
    ".ink/settings.local.json",
)


class _SandboxSection(BaseModel):
    model_config = ConfigDict(extra="ignore")
    enabled: bool | None = None
    network: bool | None = None
    writable: list[str] = Field(default_factory=list)


@dataclass
class SessionSettings:
    """Hooks and sandbox for a session, and lines for the user (problems, what was ignored)."""

    hooks: list[HookEntry] = field(default_factory=list)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    notes: list[str] = field(default_factory=list)


def user_settings_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "ink-ls" / "settings.json"


def load_session_settings(cwd: Path, *, trusted: bool) -> SessionSettings:
    """Every file's hooks (the project's only when `trusted`) and the merged sandbox."""
    out = SessionSettings()
    sandbox: dict[str, object] = {}
    writable: list[str] = []
    for path, project in [(user_settings_file(), False)] + [
        (cwd / name, True) for name in PROJECT_FILES
    ]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            out.notes.append(f"invalid settings in {path}: {exc}")
            continue
        if not isinstance(data, dict):
            out.notes.append(f"invalid settings in {path} at (root): must be a JSON object")
            continue
        if "hooks" in data:
            entries, problems = parse_hooks(data["hooks"], str(path))
            out.notes += [f"invalid settings in {p}" for p in problems]
            if entries and project and not trusted:
                out.notes.append(
                    f"{path}: {len(entries)} hooks ignored (the workspace is not trusted)"
                )
            else:
                out.hooks += entries
        if "sandbox" in data:
            try:
                section = _SandboxSection.model_validate(data["sandbox"])
            except ValidationError as exc:
                out.notes.append(f"invalid settings in {path} at sandbox: {exc.errors()[0]['msg']}")
                continue
            # a project may turn the sandbox on; widening it needs trust
            if section.enabled is not None and (section.enabled or trusted or not project):
                sandbox["enabled"] = section.enabled
            if section.network is not None and (not section.network or trusted or not project):
                sandbox["network"] = section.network
            if section.writable and (trusted or not project):
                writable += section.writable
    out.sandbox = SandboxSettings(
        enabled=bool(sandbox.get("enabled", False)),
        network=bool(sandbox.get("network", False)),
        writable=tuple(writable),
    )
    return out


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

"""Writes "always in this project" answers into `.ink/settings.local.json`.

The file is personal: when ink-ls creates it, it is added to `.git/info/exclude` so it is
never committed. Other keys and rules of the file are kept as they are.
"""

from __future__ import annotations

import json
from pathlib import Path

from ink_ls.core.fileio import atomic_write_text
from ink_ls.core.settings_files import LOCAL_FILE, RuleKind, read_settings_file


class LocalRulesError(OSError):
    """The local settings file could not be updated; the message says why."""


def _exclude_from_git(cwd: Path) -> None:
    git = cwd / ".git"
    if not git.is_dir():  # not a repository root (or a worktree's .git file): nothing to do
        return
    exclude = git / "info" / "exclude"
    try:
        text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
        if LOCAL_FILE in text.splitlines() or f"/{LOCAL_FILE}" in text.splitlines():
            return
        exclude.parent.mkdir(parents=True, exist_ok=True)
        sep = "" if not text or text.endswith("\n") else "\n"
        atomic_write_text(exclude, f"{text}{sep}/{LOCAL_FILE}\n")
    except OSError:
        pass  # the rule itself was written; git hygiene is best effort


def add_local_rule(cwd: Path, rule: str, kind: RuleKind = "allow") -> Path:
    """Append `rule` to `permissions.<kind>` of the workspace's `.ink/settings.local.json`
    (created if missing); returns the file. Raises `LocalRulesError` when the file is not
    valid JSON (it is never overwritten then) or cannot be written."""
    path = cwd / LOCAL_FILE
    created = not path.exists()
    data, problem = read_settings_file(path)
    if problem is not None:
        raise LocalRulesError(f"{problem}; fix it to save rules there")
    data = data or {}
    permissions = data.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise LocalRulesError(f"{path}: permissions must be an object to save rules there")
    rules = permissions.setdefault(kind, [])
    if not isinstance(rules, list):
        raise LocalRulesError(f"{path}: permissions.{kind} must be a list to save rules there")
    if rule not in rules:
        rules.append(rule)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise LocalRulesError(f"cannot write {path}: {exc}") from exc
    if created:
        _exclude_from_git(cwd)
    return path

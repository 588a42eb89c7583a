"""The user's standing settings files (permissions, hooks, sandbox, env, lsp): find, parse, merge.

Files, in the order they merge (later wins for values; every rule and hook of every file
applies): the user's `$XDG_CONFIG_HOME/ink-ls/settings.json`, the editor's `ink.permissions` /
`ink.hooks`, then the project's `.claude/settings.json`, `.claude/settings.local.json`,
`.ink/settings.json` and `.ink/settings.local.json`. A project file widens nothing until the
workspace is trusted: its `allow` rules, hooks, `defaultMode`, env and sandbox exceptions are
left out (its `deny` and `ask` rules always apply). Parsing is per section: a bad section or
file is reported (file and JSON path) and the rest still loads. Nothing here runs or asks.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Scope = Literal["user", "editor", "project", "local"]
"""Where a file sits: `project` (shared, committed) and `local` (personal) are the project's."""
RuleKind = Literal["allow", "ask", "deny"]
DefaultMode = Literal["ask", "auto", "readonly", "plan"]
HookEvent = Literal[
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "PreCompact"
]

PROJECT_FILES: tuple[tuple[str, Scope], ...] = (
    (".claude/settings.json", "project"),
    (".claude/settings.local.json", "local"),
    (".ink/settings.json", "project"),
    (".ink/settings.local.json", "local"),
)
LOCAL_FILE = ".ink/settings.local.json"
"""Where "always in this project" answers are written."""


class _Section(BaseModel):
    # other keys of a Claude Code settings file (additionalDirectories, …) are not ours;
    # validators are built with the first settings file read, not with the import
    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)


class PermissionsSection(_Section):
    """`permissions`: rules in Claude Code's shape (`Bash(npm test:*)`, `Read(./secrets/**)`)."""

    allow: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    default_mode: DefaultMode | None = Field(default=None, alias="defaultMode")


class HookCommand(_Section):
    """One command of a hook (Claude Code's `{"type": "command", "command", "timeout"}`)."""

    type: Literal["command"] = "command"
    command: str = Field(min_length=1)
    timeout: float | None = Field(default=None, gt=0)
    """Seconds; None: the hook runner's default."""


class HookMatcher(_Section):
    """Hooks that run for the tools whose name matches `matcher` (a regex; empty: all)."""

    matcher: str = ""
    hooks: list[HookCommand] = Field(default_factory=list)


class SandboxSection(_Section):
    """`sandbox`: run commands with the file system read-only outside the workspace."""

    enabled: bool | None = None
    network: bool | None = None
    writable: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class SettingsSource:
    """One file (or the editor's settings) that settings came from."""

    path: str
    """The file's path, or a name such as `editor settings (ink.permissions)`."""
    scope: Scope

    @property
    def from_project(self) -> bool:
        return self.scope in ("project", "local")


@dataclass(frozen=True)
class RuleEntry:
    """One permission rule as written, with where it was written (`permissions.deny[2]`)."""

    kind: RuleKind
    text: str
    source: SettingsSource
    where: str


@dataclass(frozen=True)
class HookEntry:
    """One hook command with its event, its matcher and its file (hooks of every file run)."""

    event: HookEvent
    matcher: str
    command: str
    timeout: float | None
    source: SettingsSource


@dataclass(frozen=True)
class SettingsProblem:
    """A file or section that could not be used: `<file>: <json path>: <message>`."""

    path: str
    where: str
    message: str

    def __str__(self) -> str:
        at = f" at {self.where}" if self.where else ""
        return f"invalid settings in {self.path}{at}: {self.message}"


@dataclass(frozen=True)
class SandboxSettings:
    enabled: bool = False
    network: bool = False
    writable: tuple[str, ...] = ()


@dataclass(frozen=True)
class Settings:
    """Every settings file merged. `rules` and `hooks` keep each entry's source."""

    rules: tuple[RuleEntry, ...] = ()
    default_mode: DefaultMode | None = None
    default_mode_source: SettingsSource | None = None
    hooks: tuple[HookEntry, ...] = ()
    sandbox: SandboxSettings = SandboxSettings()
    env: Mapping[str, str] = field(default_factory=dict)
    lsp: Mapping[str, Any] = field(default_factory=dict)
    """Raw, for later use."""
    problems: tuple[SettingsProblem, ...] = ()
    ignored: tuple[str, ...] = ()
    """What an untrusted project asked for and did not get, one line each (for the user)."""
    sources: tuple[SettingsSource, ...] = ()


def user_settings_path(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/ink-ls/settings.json` (default `~/.config/ink-ls/settings.json`)."""
    source = os.environ if env is None else env
    base = source.get("XDG_CONFIG_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "ink-ls" / "settings.json"


def _json_path(loc: Sequence[int | str]) -> str:
    out = ""
    for step in loc:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def _problems(exc: ValidationError, path: str, prefix: str) -> list[SettingsProblem]:
    found = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = [prefix, *err["loc"]]
        found.append(SettingsProblem(path, _json_path(loc), str(err["msg"])))
    return found


@dataclass
class _Merger:
    trusted: bool = False
    """Whether the file being added may widen (a project file the workspace trust covers)."""
    rules: list[RuleEntry] = field(default_factory=list)
    hooks: list[HookEntry] = field(default_factory=list)
    problems: list[SettingsProblem] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    default_mode: DefaultMode | None = None
    default_mode_source: SettingsSource | None = None
    sandbox: dict[str, Any] = field(default_factory=dict)
    writable: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    lsp: dict[str, Any] = field(default_factory=dict)

    def widens(self, source: SettingsSource, what: str) -> bool:
        """True when `source` may widen (it is the user's, or the workspace is trusted)."""
        if source.from_project and not self.trusted:
            self.ignored.append(f"{source.path}: {what}")
            return False
        return True

    def add(self, raw: Mapping[str, Any], source: SettingsSource) -> None:
        if "permissions" in raw:
            self._permissions(raw["permissions"], source)
        if "hooks" in raw:
            self._hooks(raw["hooks"], source)
        if "sandbox" in raw:
            self._sandbox(raw["sandbox"], source)
        if "env" in raw:
            self._env(raw["env"], source)
        if "lsp" in raw:
            if isinstance(raw["lsp"], Mapping):
                self.lsp.update(raw["lsp"])
            else:
                self.problems.append(SettingsProblem(source.path, "lsp", "must be an object"))

    def _permissions(self, raw: object, source: SettingsSource) -> None:
        places: dict[str, list[int]] = {}  # the index each kept rule had in the file
        if isinstance(raw, Mapping):  # one bad rule must not cost the file its other rules
            raw = dict(raw)
            for kind in ("allow", "ask", "deny"):
                rules = raw.get(kind)
                if not isinstance(rules, list):
                    continue
                for n, rule in enumerate(rules):
                    if not isinstance(rule, str):
                        where = f"permissions.{kind}[{n}]"
                        self.problems.append(
                            SettingsProblem(source.path, where, "a rule must be a string")
                        )
                places[kind] = [n for n, r in enumerate(rules) if isinstance(r, str)]
                raw[kind] = [r for r in rules if isinstance(r, str)]
            mode = raw.get("defaultMode")
            if mode is not None and mode not in DefaultMode.__args__:  # type: ignore[attr-defined]
                modes = ", ".join(DefaultMode.__args__)  # type: ignore[attr-defined]
                self.problems.append(
                    SettingsProblem(
                        source.path, "permissions.defaultMode", f"must be one of {modes}"
                    )
                )
                del raw["defaultMode"]
        try:
            section = PermissionsSection.model_validate(raw)
        except ValidationError as exc:
            self.problems += _problems(exc, source.path, "permissions")
            return
        kinds: tuple[RuleKind, ...] = ("deny", "ask", "allow")
        for kind in kinds:
            texts: list[str] = getattr(section, kind)
            if kind == "allow" and texts and not self.widens(source, f"{len(texts)} allow rules"):
                continue
            for n, text in enumerate(texts):
                at = places.get(kind, [])[n] if n < len(places.get(kind, [])) else n
                self.rules.append(RuleEntry(kind, text, source, f"permissions.{kind}[{at}]"))
        mode = section.default_mode
        if mode is not None and self.widens(source, f"defaultMode {mode}"):
            self.default_mode, self.default_mode_source = mode, source

    def _hooks(self, raw: object, source: SettingsSource) -> None:
        if not isinstance(raw, Mapping):
            self.problems.append(SettingsProblem(source.path, "hooks", "must be an object"))
            return
        valid = HookEvent.__args__  # type: ignore[attr-defined]
        entries: list[HookEntry] = []
        for event, matchers in raw.items():
            if event not in valid:
                self.problems.append(
                    SettingsProblem(
                        source.path, f"hooks.{event}", f"unknown event; one of {', '.join(valid)}"
                    )
                )
                continue
            if not isinstance(matchers, list):
                self.problems.append(
                    SettingsProblem(source.path, f"hooks.{event}", "must be a list of matchers")
                )
                continue
            for n, item in enumerate(matchers):
                try:
                    matcher = HookMatcher.model_validate(item)
                except ValidationError as exc:
                    self.problems += _problems(exc, source.path, f"hooks.{event}[{n}]")
                    continue
                for hook in matcher.hooks:
                    entries.append(
                        HookEntry(event, matcher.matcher, hook.command, hook.timeout, source)
                    )
        if entries and self.widens(source, f"{len(entries)} hooks"):
            self.hooks += entries

    def _sandbox(self, raw: object, source: SettingsSource) -> None:
        try:
            section = SandboxSection.model_validate(raw)
        except ValidationError as exc:
            self.problems += _problems(exc, source.path, "sandbox")
            return
        if section.enabled is not None:
            # turning the sandbox on narrows: any file may; turning it off widens
            if section.enabled or self.widens(source, "sandbox.enabled false"):
                self.sandbox["enabled"] = section.enabled
        if section.network is not None:
            if not section.network or self.widens(source, "sandbox.network true"):
                self.sandbox["network"] = section.network
        if section.writable and self.widens(source, "sandbox.writable"):
            self.writable += section.writable

    def _env(self, raw: object, source: SettingsSource) -> None:
        if not isinstance(raw, Mapping) or not all(isinstance(v, str) for v in raw.values()):
            self.problems.append(SettingsProblem(source.path, "env", "must map names to strings"))
            return
        if raw and self.widens(source, "env"):
            self.env.update({str(k): v for k, v in raw.items()})

    def result(self, sources: Sequence[SettingsSource]) -> Settings:
        return Settings(
            rules=tuple(self.rules),
            default_mode=self.default_mode,
            default_mode_source=self.default_mode_source,
            hooks=tuple(self.hooks),
            sandbox=SandboxSettings(
                enabled=bool(self.sandbox.get("enabled", False)),
                network=bool(self.sandbox.get("network", False)),
                writable=tuple(self.writable),
            ),
            env=dict(self.env),
            lsp=dict(self.lsp),
            problems=tuple(self.problems),
            ignored=tuple(self.ignored),
            sources=tuple(sources),
        )


def _read(path: Path) -> tuple[dict[str, Any] | None, bytes, SettingsProblem | None]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, b"", None
    except OSError as exc:
        return None, b"", SettingsProblem(str(path), "", f"cannot be read: {exc}")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return None, raw, SettingsProblem(str(path), "", f"not UTF-8: {exc}")
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        return None, raw, SettingsProblem(str(path), "", f"not valid JSON ({where}): {exc.msg}")
    if not isinstance(data, dict):
        return None, raw, SettingsProblem(str(path), "(root)", "must be a JSON object")
    return data, raw, None


def read_settings_file(path: Path) -> tuple[dict[str, Any] | None, SettingsProblem | None]:
    """A file's JSON object; (None, None) when it does not exist, (None, problem) when bad."""
    data, _raw, problem = _read(path)
    return data, problem


Covers = Callable[[str, bytes], bool]
"""Whether the workspace trust covers a project file (its name under the root, its bytes)."""


def load_settings(
    cwd: Path,
    *,
    trusted: bool | Covers,
    editor: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Every settings file for the workspace `cwd`, merged (see the module docstring).

    `editor` is the editor's `{"permissions": …, "hooks": …}` (from `ink.permissions` and
    `ink.hooks`); `trusted` says whether the project's files may widen anything: a bool, or
    the workspace trust's check of each file as read (a file changed since it was trusted
    widens nothing).
    """
    merger = _Merger()
    sources: list[SettingsSource] = []
    files: list[tuple[Path, Scope]] = [(user_settings_path(env), "user")]
    files += [(cwd / name, scope) for name, scope in PROJECT_FILES]
    for n, (path, scope) in enumerate(files):
        if n == 1 and editor:
            source = SettingsSource("editor settings (ink.permissions, ink.hooks)", "editor")
            sources.append(source)
            merger.trusted = True
            merger.add(editor, source)
        data, raw, problem = _read(path)
        if problem is not None:
            merger.problems.append(problem)
        if data is None:
            continue
        source = SettingsSource(str(path), scope)
        sources.append(source)
        if not source.from_project:
            merger.trusted = True
        elif callable(trusted):
            merger.trusted = trusted(path.relative_to(cwd).as_posix(), raw)
        else:
            merger.trusted = trusted
        merger.add(data, source)
    return merger.result(sources)


def describe_settings(root: Path, contents: Mapping[str, bytes]) -> list[str]:
    """The workspace trust question's lines for the project's settings files (their content
    as read for the question): what trusting them turns on, one line per file."""
    lines = []
    for name, _scope in PROJECT_FILES:
        raw = contents.get(name)
        if raw is None:
            continue
        merger = _Merger(trusted=True)
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            lines.append(f"{name}: not valid JSON (nothing of it applies)")
            continue
        if isinstance(data, dict):
            merger.add(data, SettingsSource(name, "project"))
        parts = [f"allow {r.text}" for r in merger.rules if r.kind == "allow"]
        parts += [f"defaultMode {merger.default_mode}"] if merger.default_mode else []
        parts += [f"hook {h.event}: {h.command}" for h in merger.hooks]
        parts += [f"env {', '.join(merger.env)}"] if merger.env else []
        if (
            merger.writable
            or merger.sandbox.get("network")
            or merger.sandbox.get("enabled") is False
        ):
            parts.append("sandbox exceptions")
        if parts:
            lines.append(f"{name}: {'; '.join(parts)}")
    return lines

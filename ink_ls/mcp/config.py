"""MCP server configuration: the user's file, the workspace's `.mcp.json`, the editor's settings.

The shape users already have (Claude Code, Cursor): `{"mcpServers": {name: {"command", "args",
"env", "cwd"} | {"url", "headers"}}}`, plus our `"trusted": true` (read-only tools of that
server run without asking). `${VAR}` and `${VAR:-default}` are expanded in every string.
Parsing is lenient: a bad server is reported as a problem and the others still load.
Nothing here logs values: env and headers may hold secrets.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Origin = Literal["user", "workspace", "editor"]
WORKSPACE_FILE = ".mcp.json"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_KNOWN = {"command", "args", "env", "cwd", "url", "headers", "trusted", "type", "disabled"}


@dataclass(frozen=True)
class ServerConfig:
    """One server, variables expanded. `shown` is what status may print (no env, no headers)."""

    name: str
    origin: Origin
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    trusted: bool = False
    shown: str = ""
    error: str | None = None
    """Set when the entry cannot be started (a missing variable, a wrong type)."""

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"


DEFAULT_START_TIMEOUT = 30.0
"""Seconds a server gets to start and list its tools."""


def user_config_path() -> Path:
    """`$XDG_CONFIG_HOME/ink-ls/mcp.json` (default `~/.config/ink-ls/mcp.json`)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ink-ls" / "mcp.json"


def _expand(text: str, env: Mapping[str, str], missing: list[str]) -> str:
    def sub(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        missing.append(name)
        return ""

    return _VAR.sub(sub, text)


def _strings(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be a list of strings")
    return value


def _string_map(value: object, what: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError(f"{what} must be an object of strings")
    return dict(value)


def parse_server(
    name: str, raw: object, origin: Origin, *, root: Path, env: Mapping[str, str]
) -> tuple[ServerConfig | None, list[str]]:
    """One entry; returns (config or None when disabled/unusable, problems)."""
    where = f"mcpServers.{name}"
    if not isinstance(raw, Mapping):
        return None, [f"{where}: must be an object"]
    if raw.get("disabled") is True:
        return None, []
    problems = [f"{where}.{k}: unknown setting" for k in raw if k not in _KNOWN]
    missing: list[str] = []
    try:
        kind = raw.get("type")
        if kind is not None and kind not in ("stdio", "http", "streamable-http"):
            raise ValueError(f"type {kind!r} is not supported (use stdio or http)")
        has_command, has_url = "command" in raw, "url" in raw
        if has_command == has_url:
            raise ValueError('give either "command" (a program) or "url" (streamable HTTP)')
        trusted = raw.get("trusted", False)
        if not isinstance(trusted, bool):
            raise ValueError('"trusted" must be true or false')
        if has_url:
            url = raw["url"]
            if not isinstance(url, str) or not url.strip():
                raise ValueError('"url" must be a non-empty string')
            headers = _string_map(raw.get("headers", {}), '"headers"')
            config = ServerConfig(
                name,
                origin,
                url=_expand(url, env, missing),
                headers={k: _expand(v, env, missing) for k, v in headers.items()},
                trusted=trusted,
                shown=url,
            )
        else:
            command = raw["command"]
            if not isinstance(command, str) or not command.strip():
                raise ValueError('"command" must be a non-empty string')
            args = _strings(raw.get("args", []), '"args"')
            server_env = _string_map(raw.get("env", {}), '"env"')
            cwd_raw = raw.get("cwd")
            if cwd_raw is not None and not isinstance(cwd_raw, str):
                raise ValueError('"cwd" must be a string')
            cwd = root / _expand(cwd_raw, env, missing) if cwd_raw else root
            config = ServerConfig(
                name,
                origin,
                command=_expand(command, env, missing),
                args=tuple(_expand(a, env, missing) for a in args),
                env={k: _expand(v, env, missing) for k, v in server_env.items()},
                cwd=cwd,
                trusted=trusted,
                shown=" ".join([command, *args]),
            )
    except ValueError as exc:
        return ServerConfig(name, origin, error=str(exc)), problems
    if missing:
        names = ", ".join(f"${{{m}}}" for m in dict.fromkeys(missing))
        config = ServerConfig(
            name,
            origin,
            shown=config.shown,
            trusted=config.trusted,
            error=f"references {names}, which is not set",
        )
    return config, problems


def parse_servers(
    raw: object, origin: Origin, *, root: Path, env: Mapping[str, str] | None = None
) -> tuple[list[ServerConfig], list[str]]:
    """`{name: entry}` (the value of `mcpServers`) → configs and problems."""
    if raw is None:
        return [], []
    if not isinstance(raw, Mapping):
        return [], ["mcpServers: must be an object"]
    environ = os.environ if env is None else env
    configs: list[ServerConfig] = []
    problems: list[str] = []
    for name, entry in raw.items():
        config, found = parse_server(str(name), entry, origin, root=root, env=environ)
        problems += found
        if config is not None:
            configs.append(config)
    return configs, problems


def read_file(path: Path, origin: Origin, *, root: Path) -> tuple[list[ServerConfig], list[str]]:
    """A JSON file with `mcpServers`; a missing file is no servers, a broken one a problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [f"{path}: cannot be read: {exc.strerror or exc}"]
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        return [], [f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})"]
    if not isinstance(data, Mapping):
        return [], [f"{path}: must hold a JSON object"]
    configs, problems = parse_servers(data.get("mcpServers"), origin, root=root)
    return configs, [f"{path}: {p}" for p in problems]


def load_configs(workspace: Path, editor: object = None) -> tuple[list[ServerConfig], list[str]]:
    """All servers for `workspace`: user file, then `.mcp.json`, then the editor's settings;
    a later source replaces an earlier server of the same name."""
    by_name: dict[str, ServerConfig] = {}
    problems: list[str] = []
    for configs, found in (
        read_file(user_config_path(), "user", root=workspace),
        read_file(workspace / WORKSPACE_FILE, "workspace", root=workspace),
        parse_servers(editor, "editor", root=workspace),
    ):
        problems += found
        for config in configs:
            by_name.pop(config.name, None)
            by_name[config.name] = config
    return list(by_name.values()), problems

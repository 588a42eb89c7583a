"""MCP server configuration: the user's file, the workspace's `.mcp.json`, the editor's settings.

The shape users already have (Claude Code, Cursor): `{"mcpServers": {name: {"command", "args",
"env", "cwd"} | {"url", "headers"}}}`, plus our `"trusted": true` (read-only tools of that
server run without asking). `${VAR}` and `${VAR:-default}` are expanded in every string, as
`core.expansion` allows: never the model's API key, and in a workspace `.mcp.json` only the
variables the user allowed and those of the server's own `env` block.
Parsing is lenient: a bad server is reported as a problem and the others still load.
Nothing here logs values: env and headers may hold secrets.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from ink_ls.core.expansion import Expander, user_allowed_env

Origin = Literal["user", "workspace", "editor"]
WORKSPACE_FILE = ".mcp.json"
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
    described: str = ""
    """What would run, as written, values of env and headers masked (the trust question)."""
    digest: str = ""
    """The sha256 of the file the entry was read from (what a trust decision covers)."""

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"


DEFAULT_START_TIMEOUT = 30.0
"""Seconds a server gets to start and list its tools."""


def user_config_path() -> Path:
    """`$XDG_CONFIG_HOME/ink-ls/mcp.json` (default `~/.config/ink-ls/mcp.json`)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ink-ls" / "mcp.json"


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


def _mask_url(url: str) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password:
        netloc = netloc.replace(f":{parts.password}@", ":***@")
    query = "&".join(
        f"{k}=***" if v else k for k, v in parse_qsl(parts.query, keep_blank_values=True)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def describe(raw: Mapping[str, Any]) -> str:
    """One entry as the user approves it: the command line (or URL) as written, then the
    names of its env variables and headers with their values masked."""
    if isinstance(raw.get("url"), str):
        line = _mask_url(raw["url"])
        headers = raw.get("headers")
        if isinstance(headers, Mapping) and headers:
            line += " (headers: " + ", ".join(f"{k}: ***" for k in headers) + ")"
        return line
    command = raw.get("command")
    args = raw.get("args", [])
    words = [str(command)] + ([str(a) for a in args] if isinstance(args, list) else [])
    line = shlex.join(words)
    env = raw.get("env")
    if isinstance(env, Mapping) and env:
        line = " ".join(f"{k}=***" for k in env) + " " + line
    if isinstance(raw.get("cwd"), str):
        line += f" (in {raw['cwd']})"
    return line


def _expander(
    raw: Mapping[str, Any], origin: Origin, env: Mapping[str, str], secret: Collection[str]
) -> Expander:
    if origin != "workspace":
        return Expander(env, None, secret)
    own = raw.get("env")  # the server's own variables: it is given them anyway
    named = set(own) if isinstance(own, Mapping) else set()
    return Expander(env, user_allowed_env() | {str(n) for n in named}, secret)


def parse_server(
    name: str,
    raw: object,
    origin: Origin,
    *,
    root: Path,
    env: Mapping[str, str],
    secret: Collection[str] = (),
) -> tuple[ServerConfig | None, list[str]]:
    """One entry; returns (config or None when disabled/unusable, problems). `secret` names
    the variables that never expand (the model's API key)."""
    where = f"mcpServers.{name}"
    if not isinstance(raw, Mapping):
        return None, [f"{where}: must be an object"]
    if raw.get("disabled") is True:
        return None, []
    problems = [f"{where}.{k}: unknown setting" for k in raw if k not in _KNOWN]
    expand = _expander(raw, origin, env, secret)
    missing = expand.missing
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
                url=expand(url),
                headers={k: expand(v) for k, v in headers.items()},
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
            cwd = root / expand(cwd_raw) if cwd_raw else root
            config = ServerConfig(
                name,
                origin,
                command=expand(command),
                args=tuple(expand(a) for a in args),
                env={k: expand(v) for k, v in server_env.items()},
                cwd=cwd,
                trusted=trusted,
                shown=shlex.join([command, *args]),
            )
    except ValueError as exc:
        return ServerConfig(name, origin, error=str(exc)), problems
    warning = expand.warning(origin == "workspace")
    if warning is not None:
        problems.append(f"{where}: {warning}")
    if missing:
        names = ", ".join(f"${{{m}}}" for m in dict.fromkeys(missing))
        config = ServerConfig(
            name,
            origin,
            shown=config.shown,
            trusted=config.trusted,
            error=f"references {names}, which is not set",
        )
    return replace(config, described=describe(raw)), problems


def parse_servers(
    raw: object,
    origin: Origin,
    *,
    root: Path,
    env: Mapping[str, str] | None = None,
    secret: Collection[str] = (),
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
        config, found = parse_server(
            str(name), entry, origin, root=root, env=environ, secret=secret
        )
        problems += found
        if config is not None:
            configs.append(config)
    return configs, problems


def read_file(
    path: Path, origin: Origin, *, root: Path, secret: Collection[str] = ()
) -> tuple[list[ServerConfig], list[str]]:
    """A JSON file with `mcpServers`; a missing file is no servers, a broken one a problem."""
    try:
        data_bytes = path.read_bytes()
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [f"{path}: cannot be read: {exc.strerror or exc}"]
    try:
        data: Any = json.loads(data_bytes.decode("utf-8"))
    except UnicodeDecodeError:
        return [], [f"{path}: not valid UTF-8"]
    except json.JSONDecodeError as exc:
        return [], [f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})"]
    if not isinstance(data, Mapping):
        return [], [f"{path}: must hold a JSON object"]
    configs, problems = parse_servers(data.get("mcpServers"), origin, root=root, secret=secret)
    digest = hashlib.sha256(data_bytes).hexdigest()
    return [replace(c, digest=digest) for c in configs], [f"{path}: {p}" for p in problems]


def load_configs(
    workspace: Path, editor: object = None, *, secret: Collection[str] = ()
) -> tuple[list[ServerConfig], list[str]]:
    """All servers for `workspace`: user file, then `.mcp.json`, then the editor's settings;
    a later source replaces an earlier server of the same name. `secret`: the variables
    that never expand (the model's API key)."""
    by_name: dict[str, ServerConfig] = {}
    problems: list[str] = []
    for configs, found in (
        read_file(user_config_path(), "user", root=workspace, secret=secret),
        read_file(workspace / WORKSPACE_FILE, "workspace", root=workspace, secret=secret),
        parse_servers(editor, "editor", root=workspace, secret=secret),
    ):
        problems += found
        for config in configs:
            by_name.pop(config.name, None)
            by_name[config.name] = config
    return list(by_name.values()), problems


def describe_servers(workspace: Path, contents: Mapping[str, bytes]) -> list[str]:
    """The trust question's lines for a workspace's `.mcp.json` (its content as read for the
    question): `MCP server <name>: <what runs>`, values masked."""
    raw = contents.get(WORKSPACE_FILE)
    if raw is None:
        return []
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        return [f"{WORKSPACE_FILE}: not valid JSON (no server starts)"]
    servers = data.get("mcpServers") if isinstance(data, Mapping) else None
    if not isinstance(servers, Mapping):
        return []
    return [
        f"MCP server {name}: {describe(entry)}"
        for name, entry in servers.items()
        if isinstance(entry, Mapping) and entry.get("disabled") is not True
    ]

"""The server's settings (`initializationOptions.ink`, `settings.ink`): parse leniently.

Invalid keys fall back to their defaults and are reported as problems (one message to the user).
Nothing here shows messages or logs the API key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, get_args

from pydantic import ValidationError

from ink_ls.agent.approval import DEFAULT_APPROVAL_TIMEOUT
from ink_ls.checkpoints.settings import CheckpointSettings
from ink_ls.core.config import ApprovalMode, ConfigError, ModelSettings


def _default_model() -> ModelSettings:
    try:
        return ModelSettings.from_env()
    except ConfigError:
        return ModelSettings()


@dataclass(frozen=True)
class InkSettings:
    model: ModelSettings = field(default_factory=_default_model)
    approval: ApprovalMode = "ask"
    approval_timeout: float = DEFAULT_APPROVAL_TIMEOUT
    mcp_servers: Any = None
    """`mcpServers` as the client sent it (checked when the MCP servers start)."""
    trust_workspace: bool | None = None
    """`trustWorkspace`: true trusts the workspace's own files, false never; absent asks."""
    permissions: Any = None
    """`permissions`: rules like a settings file's (checked when a turn loads the rules)."""
    hooks: Any = None
    """`hooks`: like a settings file's (checked when a turn loads them)."""
    checkpoints: CheckpointSettings = field(default_factory=CheckpointSettings.from_env)
    """`checkpoints`: on/off, the per-file cap and pruning (over the `INK_CHECKPOINT*` ones)."""


def _model_field_names() -> dict[str, str]:
    names: dict[str, str] = {}
    for name, info in ModelSettings.model_fields.items():
        names[name] = name
        if info.alias:
            names[info.alias] = name
    return names


def _parse_model(raw: object, base: ModelSettings, problems: list[str]) -> ModelSettings:
    if raw is None:
        return base
    if not isinstance(raw, Mapping):
        problems.append("model: must be an object")
        return base
    names = _model_field_names()
    wanted: dict[str, Any] = {}
    for key, value in raw.items():
        name = names.get(str(key))
        if name is None:
            problems.append(f"model.{key}: unknown setting")
        else:
            wanted[name] = value
    values: dict[str, Any] = {name: getattr(base, name) for name in ModelSettings.model_fields}
    if wanted.get("api_key_env") and "api_key" not in wanted:
        values["api_key"] = None  # a named key variable beats INK_API_KEY (as for `run`)
    for _ in range(len(wanted) + 1):
        try:
            return ModelSettings.model_validate({**values, **wanted})
        except ValidationError as exc:
            bad = {str(err["loc"][0]) for err in exc.errors(include_input=False) if err["loc"]}
            for err in exc.errors(include_input=False):
                loc = str(err["loc"][0]) if err["loc"] else "model"
                alias = ModelSettings.model_fields[loc].alias if loc in values else None
                msg = str(err["msg"]).removeprefix("Value error, ")
                problems.append(f"model.{alias or loc}: {msg}")
            if not bad & wanted.keys():
                break
            for name in bad:
                wanted.pop(name, None)
    return base


def _parse_checkpoints(
    raw: object, base: CheckpointSettings, problems: list[str]
) -> CheckpointSettings:
    """`checkpoints` over `base`; a bad key keeps its value in `base` and is named."""
    if raw is None:
        return base
    if not isinstance(raw, Mapping):
        problems.append("checkpoints: must be an object")
        return base
    wanted = dict(raw)
    values = base.model_dump(by_alias=True)
    for _ in range(len(wanted) + 1):
        try:
            return CheckpointSettings.model_validate({**values, **wanted})
        except ValidationError as exc:
            bad = {str(err["loc"][0]) for err in exc.errors(include_input=False) if err["loc"]}
            problems += [
                f"checkpoints.{err['loc'][0]}: {err['msg']}"
                for err in exc.errors(include_input=False)
                if err["loc"]
            ]
            if not bad & wanted.keys():
                break
            for name in bad:
                wanted.pop(name, None)
    return base


def parse_settings(
    raw: object, *, base: InkSettings | None = None
) -> tuple[InkSettings, list[str]]:
    """Settings from a client's `ink` object over `base`; returns (settings, problems)."""
    start = base or InkSettings()
    problems: list[str] = []
    if raw is None:
        return start, problems
    if not isinstance(raw, Mapping):
        return start, ["ink: settings must be an object"]
    model = _parse_model(raw.get("model"), start.model, problems)
    approval = start.approval
    if "approval" in raw:
        value = raw["approval"]
        if value in get_args(ApprovalMode):
            approval = value
        else:
            problems.append("approval: must be one of 'ask', 'auto', 'readonly', 'plan'")
    timeout = start.approval_timeout
    if "approvalTimeoutSeconds" in raw:
        value = raw["approvalTimeoutSeconds"]
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            timeout = float(value)
        else:
            problems.append("approvalTimeoutSeconds: must be a number greater than 0")
    mcp_servers = start.mcp_servers
    if "mcpServers" in raw:
        if isinstance(raw["mcpServers"], Mapping):
            mcp_servers = raw["mcpServers"]
        else:
            problems.append("mcpServers: must be an object of servers")
    trust = start.trust_workspace
    if "trustWorkspace" in raw:
        if raw["trustWorkspace"] is None or isinstance(raw["trustWorkspace"], bool):
            trust = raw["trustWorkspace"]
        else:
            problems.append("trustWorkspace: must be true or false")
    sections: dict[str, Any] = {"permissions": start.permissions, "hooks": start.hooks}
    for key in sections:
        if key in raw:
            if raw[key] is None or isinstance(raw[key], Mapping):
                sections[key] = raw[key]
            else:
                problems.append(f"{key}: must be an object (as in a settings file)")
    checkpoints = _parse_checkpoints(raw.get("checkpoints"), start.checkpoints, problems)
    known = {"model", "approval", "approvalTimeoutSeconds", "mcpServers", "trustWorkspace"}
    known.add("checkpoints")
    known |= set(sections)
    problems += [f"{key}: unknown setting" for key in raw if key not in known]
    return InkSettings(
        model=model,
        approval=approval,
        approval_timeout=timeout,
        mcp_servers=mcp_servers,
        trust_workspace=trust,
        permissions=sections["permissions"],
        hooks=sections["hooks"],
        checkpoints=checkpoints,
    ), problems

"""Typed, fully defaulted configuration: the model endpoint, approval modes and the state dir.

Reads the environment only where asked (`from_env`, `state_dir`); never logs or prints the
API key (it is a `SecretStr`, and `resolved_api_key()` is the one way to get its value).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from ink_ls.core import hidden_env
from ink_ls.core.env import API_KEY_VARS as API_KEY_VARS  # re-exported: its home is core.env
from ink_ls.core.env import state_dir as state_dir

ApprovalMode = Literal["ask", "auto", "readonly", "plan"]
Provider = Literal["openai-chat", "openai-responses", "anthropic"]
"""The API a model endpoint speaks (also the key of a message's provider fields)."""
PROVIDER_BY_HOST: dict[str, Provider] = {"api.anthropic.com": "anthropic"}
"""Hosts whose API is known when no provider is set; any other host: `openai-chat`."""

DEFAULT_BASE_URL = "http://localhost:11434/v1"
"""A local Ollama: what runs when nothing is configured."""
DEFAULT_LOCAL_MODEL = "qwen2.5-coder:7b"
"""A small model with tool calling that Ollama serves (`ollama pull qwen2.5-coder:7b`)."""
DEFAULT_OPENAI_MODEL = "gpt-4.1-mini"
"""Used when the endpoint is api.openai.com and no model is named."""
DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"
"""Used when the provider is Anthropic and no model is named."""
DEFAULT_CONTEXT_WINDOW = 32_768
"""The window assumed when neither the settings nor the endpoint name one (conservative)."""


class ConfigError(ValueError):
    """A configuration value is unusable; the message names the setting and what to do."""


class ModelSettings(BaseModel):
    """How to reach one OpenAI-compatible endpoint. Wire names are camelCase (`baseUrl`, …)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )

    base_url: str = DEFAULT_BASE_URL
    model: str = DEFAULT_LOCAL_MODEL
    provider: Provider | None = None
    """The API the endpoint speaks; None: known from the host (`PROVIDER_BY_HOST`), else
    `openai-chat`. See `dialect`."""
    api_key: SecretStr | None = None
    api_key_env: str | None = None
    vision: bool = False
    max_tokens: int | None = Field(default=None, gt=0)
    request_timeout: float = Field(default=600.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    context_window: int | None = Field(default=None, ge=1024)
    """The context window in tokens; None: ask the endpoint, else `DEFAULT_CONTEXT_WINDOW`."""
    compact_threshold: float = Field(default=0.8, ge=0.2, le=0.95)
    """Compact the conversation before a request would fill this share of the window."""
    max_concurrent_requests: int | None = Field(default=None, ge=1)
    """Requests in flight to this endpoint at most, across sessions; the others wait in a
    first-come-first-served queue. None: no limit."""

    @field_validator("base_url")
    @classmethod
    def _check_base_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"base URL must be an http(s) URL such as {DEFAULT_BASE_URL}")
        return value

    @field_validator("model")
    @classmethod
    def _check_model(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("model name must not be empty")
        return value

    @property
    def dialect(self) -> Provider:
        """The provider in force: the setting, else the one known for the host."""
        if self.provider is not None:
            return self.provider
        return PROVIDER_BY_HOST.get(urlsplit(self.base_url).hostname or "", "openai-chat")

    def secret_env_names(self) -> tuple[str, ...]:
        """The variables that may hold the API key: the named one first, then `API_KEY_VARS`.

        Commands the agent runs never inherit any of them."""
        named = (self.api_key_env,) if self.api_key_env else ()
        return named + tuple(v for v in API_KEY_VARS if v != self.api_key_env)

    def resolved_api_key(self, env: Mapping[str, str] | None = None) -> str | None:
        """The key to send: `api_key`, else `$api_key_env`, else `$INK_API_KEY`, else the
        provider's own variable (`$ANTHROPIC_API_KEY` for Anthropic, else `$OPENAI_API_KEY`).

        `None` means: send no `Authorization` header (local servers need none).
        """
        if self.api_key is not None and self.api_key.get_secret_value():
            return self.api_key.get_secret_value()
        # a key for one company's API is never sent to another's endpoint
        foreign = "OPENAI_API_KEY" if self.dialect == "anthropic" else "ANTHROPIC_API_KEY"
        for name in self.secret_env_names():
            if name == foreign and name != self.api_key_env:
                continue
            # per name, not a copy of the whole environment: asked on every model request
            found = hidden_env.env_value(name) if env is None else env.get(name)
            value = (found or "").strip()
            if value:
                return value
        return None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> ModelSettings:
        """Settings from `INK_*` (falling back to `OPENAI_*`) variables, then `overrides`.

        Variables: INK_BASE_URL / OPENAI_BASE_URL, INK_MODEL, INK_PROVIDER (openai-chat,
        openai-responses, anthropic), INK_API_KEY / OPENAI_API_KEY (ANTHROPIC_API_KEY for
        Anthropic), INK_VISION (1/0), INK_MAX_TOKENS, INK_REQUEST_TIMEOUT, INK_CONTEXT_WINDOW,
        INK_COMPACT_THRESHOLD (0.2-0.95), INK_MAX_CONCURRENT_REQUESTS. Overrides that are
        `None` are ignored. Raises `ConfigError` naming the variable or option that is invalid.
        """
        source = hidden_env.environ() if env is None else env

        def get(*names: str) -> str | None:
            for name in names:
                value = source.get(name, "").strip()
                if value:
                    return value
            return None

        values: dict[str, object] = {}
        origin: dict[str, str] = {}
        for field, names in (
            ("base_url", ("INK_BASE_URL", "OPENAI_BASE_URL")),
            ("model", ("INK_MODEL",)),
            ("provider", ("INK_PROVIDER",)),
            ("api_key", ("INK_API_KEY",)),
            ("vision", ("INK_VISION",)),
            ("max_tokens", ("INK_MAX_TOKENS",)),
            ("request_timeout", ("INK_REQUEST_TIMEOUT",)),
            ("context_window", ("INK_CONTEXT_WINDOW",)),
            ("compact_threshold", ("INK_COMPACT_THRESHOLD",)),
            ("max_concurrent_requests", ("INK_MAX_CONCURRENT_REQUESTS",)),
        ):
            value = get(*names)
            if value is not None:
                values[field] = value
                origin[field] = next(n for n in names if source.get(n, "").strip())
        for field, override in overrides.items():
            if override is not None:
                values[field] = override
                origin[field] = f"--{field.replace('_', '-')}"
        if values.get("api_key_env") and origin.get("api_key") in API_KEY_VARS:
            # a named key variable beats the generic INK_API_KEY / OPENAI_API_KEY
            del values["api_key"]
        host = urlsplit(str(values.get("base_url", DEFAULT_BASE_URL))).hostname or ""
        provider = values.get("provider") or PROVIDER_BY_HOST.get(host, "openai-chat")
        if "api_key" not in values and not values.get("api_key_env"):
            vendor = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
            if source.get(vendor, "").strip():
                values["api_key"], origin["api_key"] = source[vendor].strip(), vendor
        if "model" not in values:
            if provider == "anthropic":
                values["model"] = DEFAULT_ANTHROPIC_MODEL
            elif host == "api.openai.com":
                values["model"] = DEFAULT_OPENAI_MODEL
            else:
                values["model"] = DEFAULT_LOCAL_MODEL
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise ConfigError(_describe(exc, origin)) from None


def _describe(exc: ValidationError, origin: Mapping[str, str]) -> str:
    """One sentence per bad setting, naming where it came from; never echoes the value."""
    parts = []
    for err in exc.errors(include_input=False):
        field = str(err["loc"][0]) if err["loc"] else "settings"
        message = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{origin.get(field, field)}: {message}")
    return "invalid model settings: " + "; ".join(parts)

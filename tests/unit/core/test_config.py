"""Model settings from the environment, wire aliases, key resolution, the state directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from ink_ls.core.config import ConfigError, ModelSettings, state_dir


def test_nothing_set_means_a_local_ollama() -> None:
    s = ModelSettings.from_env({})
    assert s.base_url == "http://localhost:11434/v1"
    assert s.model == "qwen2.5-coder:7b"
    assert s.resolved_api_key({}) is None
    assert (s.vision, s.max_tokens, s.request_timeout, s.max_retries) == (False, None, 600.0, 3)


def test_ink_variables_win_over_openai_ones() -> None:
    env = {
        "INK_BASE_URL": "http://127.0.0.1:8080/v1/",
        "OPENAI_BASE_URL": "https://x/v1",
        "INK_MODEL": "m1",
        "INK_API_KEY": "ink-key",
        "OPENAI_API_KEY": "oa-key",
        "INK_VISION": "1",
        "INK_MAX_TOKENS": "2048",
        "INK_REQUEST_TIMEOUT": "30",
    }
    s = ModelSettings.from_env(env)
    assert (s.base_url, s.model, s.vision, s.max_tokens, s.request_timeout) == (
        "http://127.0.0.1:8080/v1",
        "m1",
        True,
        2048,
        30.0,
    )
    assert s.resolved_api_key({}) == "ink-key"


def test_openai_fallbacks_and_the_openai_default_model() -> None:
    env = {"OPENAI_BASE_URL": "https://api.openai.com/v1", "OPENAI_API_KEY": "oa-key"}
    s = ModelSettings.from_env(env)
    assert (s.base_url, s.model) == ("https://api.openai.com/v1", "gpt-4.1-mini")
    assert s.resolved_api_key({}) == "oa-key"


def test_overrides_beat_the_environment_and_none_is_ignored() -> None:
    s = ModelSettings.from_env({"INK_MODEL": "env-model"}, model="cli-model", base_url=None)
    assert (s.model, s.base_url) == ("cli-model", "http://localhost:11434/v1")


def test_api_key_env_names_the_variable_to_read() -> None:
    s = ModelSettings.from_env({}, api_key_env="MY_KEY")
    assert s.resolved_api_key({"MY_KEY": "mine", "OPENAI_API_KEY": "other"}) == "mine"
    assert s.resolved_api_key({"OPENAI_API_KEY": "other"}) == "other"
    env = {"MY_KEY": "mine", "INK_API_KEY": "generic"}
    named = ModelSettings.from_env(env, api_key_env="MY_KEY")
    assert named.resolved_api_key(env) == "mine"  # the named variable beats INK_API_KEY
    assert (
        ModelSettings.from_env(env, api_key_env="MY_KEY", api_key="given").resolved_api_key(env)
        == "given"
    )


def test_invalid_values_name_their_source_and_never_echo_the_value() -> None:
    with pytest.raises(ConfigError) as info:
        ModelSettings.from_env({"INK_MAX_TOKENS": "lots", "INK_BASE_URL": "localhost:1234"})
    assert str(info.value) == (
        "invalid model settings: INK_BASE_URL: base URL must be an http(s) URL such as "
        "http://localhost:11434/v1; INK_MAX_TOKENS: Input should be a valid integer, unable "
        "to parse string as an integer"
    )
    with pytest.raises(ConfigError, match=r"^invalid model settings: --request-timeout: "):
        ModelSettings.from_env({}, request_timeout=-1)


def test_camel_case_wire_names_and_a_hidden_key() -> None:
    s = ModelSettings.model_validate(
        {
            "baseUrl": "http://h/v1",
            "model": "m",
            "apiKey": "sk-1",
            "maxTokens": 8,
            "requestTimeout": 5,
            "apiKeyEnv": "K",
        }
    )
    assert (s.base_url, s.max_tokens, s.request_timeout, s.api_key_env) == (
        "http://h/v1",
        8,
        5.0,
        "K",
    )
    assert "sk-1" not in repr(s) and "sk-1" not in str(s.model_dump())
    assert s.resolved_api_key({}) == "sk-1"


def test_state_dir_precedence(tmp_path: Path) -> None:
    assert state_dir({"INK_STATE_DIR": str(tmp_path / "s"), "XDG_STATE_HOME": "/x"}) == (
        tmp_path / "s"
    )
    assert state_dir({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "ink-ls"
    assert state_dir({}) == Path.home() / ".local" / "state" / "ink-ls"


def test_the_provider_is_the_setting_else_known_from_the_host() -> None:
    assert ModelSettings.from_env({}).dialect == "openai-chat"
    anthropic = ModelSettings.from_env({"INK_BASE_URL": "https://api.anthropic.com/v1"})
    assert (anthropic.provider, anthropic.dialect) == (None, "anthropic")
    assert anthropic.model == "claude-sonnet-4-5"
    env = {"INK_BASE_URL": "https://api.openai.com/v1", "INK_PROVIDER": "openai-responses"}
    assert ModelSettings.from_env(env).dialect == "openai-responses"
    with pytest.raises(ConfigError) as info:
        ModelSettings.from_env({"INK_PROVIDER": "gemini"})
    assert str(info.value).startswith("invalid model settings: INK_PROVIDER: Input should be")


def test_a_key_for_one_companys_api_never_goes_to_the_other() -> None:
    both = {"OPENAI_API_KEY": "oa-key", "ANTHROPIC_API_KEY": "ant-key"}
    to_anthropic = ModelSettings.from_env({**both, "INK_BASE_URL": "https://api.anthropic.com/v1"})
    assert to_anthropic.resolved_api_key({}) == "ant-key"
    assert ModelSettings(provider="anthropic").resolved_api_key(both) == "ant-key"
    assert ModelSettings.from_env(both).resolved_api_key({}) == "oa-key"
    assert ModelSettings().resolved_api_key({"ANTHROPIC_API_KEY": "ant-key"}) is None
    # every key variable stays hidden from commands, whichever provider runs
    assert {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "INK_API_KEY"} <= set(
        ModelSettings().secret_env_names()
    )

"""Settings from `initializationOptions.ink`: valid keys apply, bad ones fall back and are named."""

from __future__ import annotations

import pytest

from ink_ls.editor.settings import InkSettings, parse_settings


def test_valid_settings_apply() -> None:
    settings, problems = parse_settings(
        {
            "model": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "model": "m",
                "apiKey": "sk-x",
                "maxTokens": 100,
                "vision": True,
            },
            "approval": "readonly",
            "approvalTimeoutSeconds": 5,
        }
    )
    assert problems == []
    assert settings.approval == "readonly"
    assert settings.approval_timeout == 5.0
    assert settings.model.base_url == "http://127.0.0.1:9/v1"
    assert settings.model.max_tokens == 100
    assert settings.model.resolved_api_key() == "sk-x"


def test_bad_keys_fall_back_to_defaults_and_are_named_without_secrets() -> None:
    base = InkSettings()
    settings, problems = parse_settings(
        {
            "model": {
                "baseUrl": "ftp://nope",
                "model": "kept",
                "apiKey": "sk-secret",
                "temperature": 2,
            },
            "approval": "sometimes",
            "approvalTimeoutSeconds": -1,
            "colour": "blue",
        },
        base=base,
    )
    assert settings.approval == base.approval
    assert settings.approval_timeout == base.approval_timeout
    assert settings.model.model == "kept"  # the good keys of a bad object still apply
    assert settings.model.base_url == base.model.base_url
    assert problems == [
        "model.temperature: unknown setting",
        "model.baseUrl: base URL must be an http(s) URL such as http://localhost:11434/v1",
        "approval: must be one of 'ask', 'auto', 'readonly', 'plan'",
        "approvalTimeoutSeconds: must be a number greater than 0",
        "colour: unknown setting",
    ]
    assert "sk-secret" not in str(problems)


def test_not_an_object() -> None:
    settings, problems = parse_settings(["ask"])
    assert problems == ["ink: settings must be an object"]
    settings, problems = parse_settings({"model": "gpt"})
    assert problems == ["model: must be an object"]
    assert parse_settings(None)[1] == []


def test_a_named_key_variable_beats_the_generic_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INK_API_KEY", "generic")
    monkeypatch.setenv("MY_KEY", "named")
    settings, problems = parse_settings({"model": {"apiKeyEnv": "MY_KEY"}})
    assert problems == []
    assert settings.model.resolved_api_key() == "named"


def test_checkpoint_settings_over_the_environment_defaults() -> None:
    settings, problems = parse_settings(
        {"checkpoints": {"enabled": False, "maxFileMb": 2, "maxAgeDays": 7, "maxStoreMb": 64}}
    )
    assert problems == []
    cp = settings.checkpoints
    assert (cp.enabled, cp.max_file_bytes, cp.max_age_days, cp.max_store_mb) == (
        False,
        2 * 1024 * 1024,
        7,
        64,
    )


def test_a_bad_checkpoint_key_keeps_its_default_and_is_named() -> None:
    settings, problems = parse_settings({"checkpoints": {"maxFileMb": -1, "maxAgeDays": 3}})
    assert settings.checkpoints.max_file_mb == 10
    assert settings.checkpoints.max_age_days == 3
    assert [p.split(":")[0] for p in problems] == ["checkpoints.maxFileMb"]
    _, problems = parse_settings({"checkpoints": {"keepForever": True}})
    assert [p.split(":")[0] for p in problems] == ["checkpoints.keepForever"]
    _, problems = parse_settings({"checkpoints": 5})
    assert problems == ["checkpoints: must be an object"]

"""The context window: the setting, else the endpoint's /models figure, else the default."""

from __future__ import annotations

import httpx

from ink_ls.core.config import DEFAULT_CONTEXT_WINDOW, ModelSettings
from ink_ls.model.window import detect_window, resolve_context_window, window_from_models


def test_each_servers_field_is_understood() -> None:
    for entry, expected in (
        ({"id": "m", "max_model_len": 8192}, (8192, "max_model_len")),  # vLLM
        ({"id": "m", "context_length": 131072}, (131072, "context_length")),  # OpenRouter
        ({"id": "m", "meta": {"n_ctx_train": 4096}}, (4096, "n_ctx_train")),  # llama.cpp
        ({"id": "m", "top_provider": {"context_length": 2048}}, (2048, "context_length")),
        ({"id": "m", "context_length": True}, None),
        ({"id": "other", "context_length": 9}, None),
    ):
        assert window_from_models({"data": [entry]}, "m") == expected
    assert window_from_models(["not", "a", "list"], "m") is None


async def test_setting_then_endpoint_then_default() -> None:
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return httpx.Response(200, json={"data": [{"id": "m", "context_length": 65536}]})

    settings = ModelSettings(base_url="http://models.test/v1", model="m")
    transport = httpx.MockTransport(answer)
    assert await resolve_context_window(settings, transport=transport) == 65536
    assert "http://models.test/v1/models" in asked
    fixed = settings.model_copy(update={"context_window": 4096})
    assert await resolve_context_window(fixed, transport=transport) == 4096
    assert len(asked) == 4  # /models and the three native questions, nothing more
    missing = httpx.MockTransport(lambda r: httpx.Response(404, text="no such route"))
    assert await resolve_context_window(settings, transport=missing) == DEFAULT_CONTEXT_WINDOW
    broken = httpx.MockTransport(lambda r: httpx.Response(200, text="<html>"))
    assert await resolve_context_window(settings, transport=broken) == DEFAULT_CONTEXT_WINDOW


async def test_anthropic_is_known_to_run_200k_and_is_not_probed() -> None:
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return httpx.Response(404)

    settings = ModelSettings(base_url="https://api.anthropic.com/v1", model="claude-sonnet-4-5")
    window = await detect_window(settings, transport=httpx.MockTransport(handler))
    assert (window.tokens, window.describe()) == (200_000, "window 200,000 tokens (Anthropic)")
    assert asked == []

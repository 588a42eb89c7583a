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


def _server(routes: dict[str, object]) -> httpx.MockTransport:
    """Answers the paths in `routes` with their JSON, everything else with 404."""

    def answer(request: httpx.Request) -> httpx.Response:
        body = routes.get(request.url.path)
        return httpx.Response(404) if body is None else httpx.Response(200, json=body)

    return httpx.MockTransport(answer)


async def test_each_server_is_asked_where_it_tells_the_window() -> None:
    settings = ModelSettings(base_url="http://local.test:8080/v1", model="m")
    cases = [
        # llama.cpp: a slot's n_ctx (the runtime window, not the trained n_ctx_train)
        (
            {
                "/props": {"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1},
                "/v1/models": {"data": [{"id": "m", "meta": {"n_ctx_train": 131072}}]},
            },
            ("llama.cpp n_ctx", 8192, True),
        ),
        ({"/props": {"n_ctx": 16384}}, ("llama.cpp n_ctx", 16384, True)),
        # LM Studio's native REST API: the loaded window, else the model's maximum
        (
            {
                "/api/v0/models/m": {
                    "id": "m",
                    "loaded_context_length": 4096,
                    "max_context_length": 32768,
                }
            },
            ("LM Studio loaded", 4096, True),
        ),
        (
            {"/api/v0/models/m": {"id": "m", "max_context_length": 32768}},
            ("LM Studio maximum", 32768, False),
        ),
        # vLLM and OpenRouter through /models
        (
            {"/v1/models": {"data": [{"id": "m", "max_model_len": 40960}]}},
            ("/models max_model_len", 40960, True),
        ),
        (
            {"/v1/models": {"data": [{"id": "m", "context_length": 200000}]}},
            ("/models context_length", 200000, False),
        ),
        ({}, ("default", DEFAULT_CONTEXT_WINDOW, False)),
    ]
    for routes, (source, tokens, runtime) in cases:
        found = await detect_window(settings, transport=_server(routes))
        assert (found.source, found.tokens, found.runtime) == (source, tokens, runtime), routes


async def test_ollama_a_loaded_model_its_modelfile_or_its_trained_maximum() -> None:
    settings = ModelSettings(base_url="http://localhost:11434/v1", model="qwen3")
    loaded = {"/api/ps": {"models": [{"name": "qwen3:latest", "context_length": 4096}]}}
    found = await detect_window(settings, transport=_server(loaded))
    assert (found.source, found.tokens) == ("Ollama runtime", 4096)
    modelfile = {
        "/api/ps": {"models": []},
        "/api/show": {"parameters": 'stop "<|im_end|>"\nnum_ctx 12288', "model_info": {}},
    }
    found = await detect_window(settings, transport=_server(modelfile))
    assert (found.source, found.tokens) == ("Ollama Modelfile num_ctx", 12288)
    trained = {
        "/api/ps": {"models": []},
        "/api/show": {"model_info": {"qwen3.context_length": 40960}},
    }
    found = await detect_window(settings, transport=_server(trained))
    assert (found.source, found.tokens, found.runtime) == ("Ollama trained maximum", 40960, False)


async def test_every_question_goes_to_the_endpoints_own_origin_with_its_key() -> None:
    seen: dict[str, tuple[str, str | None]] = {}

    def answer(request: httpx.Request) -> httpx.Response:
        seen[request.url.path] = (request.url.host, request.headers.get("authorization"))
        return httpx.Response(404)

    settings = ModelSettings(base_url="https://api.example.test/v1", model="m", api_key="sk-x")
    await detect_window(settings, transport=httpx.MockTransport(answer))
    assert sorted(seen) == ["/api/ps", "/api/v0/models/m", "/props", "/v1/models"]
    assert set(seen.values()) == {("api.example.test", "Bearer sk-x")}


async def test_anthropic_is_known_to_run_200k_and_is_not_probed() -> None:
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return httpx.Response(404)

    settings = ModelSettings(base_url="https://api.anthropic.com/v1", model="claude-sonnet-4-5")
    window = await detect_window(settings, transport=httpx.MockTransport(handler))
    assert (window.tokens, window.describe()) == (200_000, "window 200,000 tokens (Anthropic)")
    assert asked == []

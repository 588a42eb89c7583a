"""The context window the server really runs: the setting, else what the server says, else a
conservative default (`DEFAULT_CONTEXT_WINDOW`, stated in the README).

Asked where each server tells it, all at once (one round trip): Ollama's `/api/ps` (the
loaded model's `context_length`; the model is preloaded when absent, `/api/show` names a
Modelfile `num_ctx` or the trained maximum), llama.cpp's `/props` (`n_ctx` of a slot), LM
Studio's native `/api/v0/models/<id>` (`loaded_context_length`, else `max_context_length`),
then the OpenAI-style `/models` list (vLLM `max_model_len`, OpenRouter `context_length`, …).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any
from urllib.parse import quote

import httpx

from ink_ls.core.config import DEFAULT_CONTEXT_WINDOW, ModelSettings
from ink_ls.model.base import ContextWindow
from ink_ls.model.tls import context_for

log = logging.getLogger(__name__)

WINDOW_FIELDS = (
    "context_window",
    "context_length",
    "max_model_len",
    "max_context_length",
    "max_input_tokens",
    "n_ctx",
    "n_ctx_train",
)
ANTHROPIC_WINDOW = 200_000
"""The window of Anthropic's models (the 1M-token one is a beta that ink-ls does not ask for)."""
LOOKUP_TIMEOUT = 5.0
PRELOAD_TIMEOUT = 120.0
"""Loading a model into memory may take a while; the first turn waits for it anyway."""
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)", re.MULTILINE)


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def server_root(base_url: str) -> str:
    """The server's own root for its native endpoints: the base URL without `/v1`."""
    return re.sub(r"/(?:api/)?v1$", "", base_url.rstrip("/"))


def window_from_models(payload: Any, model: str) -> tuple[int, str] | None:
    """The window of `model` in a `/models` answer (OpenAI list shape) and the field's name."""
    entries = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("id") != model:
            continue
        for holder in (entry, entry.get("meta"), entry.get("top_provider")):
            if not isinstance(holder, dict):
                continue
            for name in WINDOW_FIELDS:
                value = _positive(holder.get(name))
                if value is not None:
                    return value, name
    return None


def _same_model(entry: dict[str, Any], model: str) -> bool:
    names = {entry.get("name"), entry.get("model")}
    return model in names or (":" not in model and f"{model}:latest" in names)


async def _json(http: httpx.AsyncClient, method: str, url: str, **kw: Any) -> Any:
    try:
        resp = await http.request(method, url, **kw)
        return resp.json() if resp.is_success else None
    except (httpx.HTTPError, ValueError):
        return None


async def _ollama_loaded(http: httpx.AsyncClient, root: str, model: str) -> int | None | bool:
    """The loaded model's runtime window; False when the server is not Ollama."""
    ps = await _json(http, "GET", f"{root}/api/ps")
    if not isinstance(ps, dict) or not isinstance(ps.get("models"), list):
        return False
    for entry in ps["models"]:
        if isinstance(entry, dict) and _same_model(entry, model):
            return _positive(entry.get("context_length"))
    return None


async def _ollama(http: httpx.AsyncClient, root: str, model: str) -> ContextWindow | None:
    loaded = await _ollama_loaded(http, root, model)
    if loaded is False:
        return None
    if loaded is None:  # not in memory yet: load it, so /api/ps tells the window it runs
        await _json(
            http, "POST", f"{root}/api/generate", json={"model": model}, timeout=PRELOAD_TIMEOUT
        )
        loaded = await _ollama_loaded(http, root, model)
    if isinstance(loaded, int) and not isinstance(loaded, bool):
        return ContextWindow(loaded, "Ollama runtime", runtime=True)
    show = await _json(http, "POST", f"{root}/api/show", json={"model": model})
    if not isinstance(show, dict):
        return None
    params = show.get("parameters")
    found = _NUM_CTX.search(params) if isinstance(params, str) else None
    if found:
        return ContextWindow(int(found.group(1)), "Ollama Modelfile num_ctx", runtime=True)
    info = show.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if key.endswith(".context_length") and _positive(value):
                return ContextWindow(value, "Ollama trained maximum")
    return None


async def _llama_cpp(http: httpx.AsyncClient, root: str) -> ContextWindow | None:
    props = await _json(http, "GET", f"{root}/props")
    if not isinstance(props, dict):
        return None
    slot = props.get("default_generation_settings")
    n_ctx = _positive(slot.get("n_ctx")) if isinstance(slot, dict) else None
    n_ctx = n_ctx or _positive(props.get("n_ctx"))
    return ContextWindow(n_ctx, "llama.cpp n_ctx", runtime=True) if n_ctx else None


async def _lm_studio(http: httpx.AsyncClient, root: str, model: str) -> ContextWindow | None:
    entry = await _json(http, "GET", f"{root}/api/v0/models/{quote(model, safe='')}")
    if not isinstance(entry, dict):
        return None
    loaded = _positive(entry.get("loaded_context_length"))
    if loaded:
        return ContextWindow(loaded, "LM Studio loaded", runtime=True)
    most = _positive(entry.get("max_context_length"))
    return ContextWindow(most, "LM Studio maximum") if most else None


async def _models(http: httpx.AsyncClient, base: str, model: str) -> ContextWindow | None:
    found = window_from_models(await _json(http, "GET", f"{base}/models"), model)
    if found is None:
        return None
    tokens, field = found
    return ContextWindow(tokens, f"/models {field}", runtime=field == "max_model_len")


async def detect_window(
    settings: ModelSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> ContextWindow:
    """`settings.context_window`, else the server's figure, else `DEFAULT_CONTEXT_WINDOW`.

    Never raises: an endpoint that answers none of the questions means the default. Every
    question goes to the endpoint's own origin (scheme, host and port of the base URL), with
    its key: a `llama-server --api-key` answers `/props` only with it."""
    if settings.context_window is not None:
        return ContextWindow(settings.context_window, "configured")
    if settings.dialect == "anthropic":  # its /models names no window; every Claude has 200k
        return ContextWindow(ANTHROPIC_WINDOW, "Anthropic", runtime=True)
    headers = {}
    key = settings.resolved_api_key()
    if key:
        headers["Authorization"] = f"Bearer {key}"
    root, model = server_root(settings.base_url), settings.model
    async with httpx.AsyncClient(
        transport=transport, timeout=LOOKUP_TIMEOUT, headers=headers, verify=context_for(root)
    ) as http:
        answers = await asyncio.gather(
            _ollama(http, root, model),
            _llama_cpp(http, root),
            _lm_studio(http, root, model),
            _models(http, settings.base_url, model),
        )
    for found in answers:
        if found is not None:
            log.info("context window of %s: %s", model, found.describe())
            return found
    log.info("context window of %s: default %d tokens", model, DEFAULT_CONTEXT_WINDOW)
    return ContextWindow(DEFAULT_CONTEXT_WINDOW, "default")


async def resolve_context_window(
    settings: ModelSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> int:
    """The window in tokens (`detect_window` without where it came from)."""
    return (await detect_window(settings, transport=transport)).tokens

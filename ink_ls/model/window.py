"""The model's context window: the setting, else what the endpoint's `/models` reports, else
a conservative default (`DEFAULT_CONTEXT_WINDOW`, stated in the README).

Servers name the window differently: vLLM `max_model_len`, OpenRouter/LM Studio
`context_length`, some `context_window` or `max_context_length`, llama.cpp `meta.n_ctx_train`
(or `n_ctx`). The first positive integer found on the model's entry wins.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

from ink_ls.core.config import DEFAULT_CONTEXT_WINDOW, ModelSettings

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
LOOKUP_TIMEOUT = 5.0


def window_from_models(payload: Any, model: str) -> int | None:
    """The window of `model` in a `/models` answer (OpenAI list shape), when one is named."""
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
                value = holder.get(name)
                if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                    return value
    return None


async def resolve_context_window(
    settings: ModelSettings, *, transport: httpx.AsyncBaseTransport | None = None
) -> int:
    """`settings.context_window`, else the endpoint's figure, else `DEFAULT_CONTEXT_WINDOW`.

    Never raises: an endpoint without `/models` (or unreachable) means the default.
    """
    if settings.context_window is not None:
        return settings.context_window
    headers = {}
    key = settings.resolved_api_key()
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        async with httpx.AsyncClient(transport=transport, timeout=LOOKUP_TIMEOUT) as http:
            resp = await http.get(settings.base_url + "/models", headers=headers)
            found = window_from_models(resp.json(), settings.model) if resp.is_success else None
    except (httpx.HTTPError, ValueError) as exc:
        log.info("no context window from %s/models (%s)", settings.base_url, type(exc).__name__)
        found = None
    if found is None:
        log.info("context window of %s: default %d tokens", settings.model, DEFAULT_CONTEXT_WINDOW)
        return DEFAULT_CONTEXT_WINDOW
    return found

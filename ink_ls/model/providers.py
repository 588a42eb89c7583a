"""Picks the provider module for settings: Chat Completions, Responses or Anthropic Messages.

The agent only ever sees the `Model` interface; this is the one place that knows the list.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx

from ink_ls.core.config import ModelSettings, Provider
from ink_ls.model.client import ModelClient, Sleep
from ink_ls.model.dialect import Dialect
from ink_ls.model.queue import EndpointQueues


def dialect_for(provider: Provider) -> Dialect:
    """The dialect object of a provider name."""
    if provider == "anthropic":
        from ink_ls.model.anthropic import AnthropicDialect

        return AnthropicDialect()
    if provider == "openai-responses":
        from ink_ls.model.responses import ResponsesDialect

        return ResponsesDialect()
    from ink_ls.model.chat import ChatDialect

    return ChatDialect()


def make_client(
    settings: ModelSettings,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    sleep: Sleep | None = None,
    rng: Callable[[], float] | None = None,
    queues: EndpointQueues | None = None,
) -> ModelClient:
    """A client for the provider `settings` name (or its host implies); `queues` holds the
    endpoints' request limits, shared by every client of the process."""
    return ModelClient(
        settings,
        dialect_for(settings.dialect),
        transport=transport,
        sleep=sleep,
        rng=rng,
        queues=queues,
    )

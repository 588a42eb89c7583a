"""What one provider API contributes to the shared HTTP client: its URL, headers, request body
and stream parser. No I/O here; `client.ModelClient` does the HTTP, retries and cancellation
the same way for every provider.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from ink_ls.core.config import ModelSettings, Provider
from ink_ls.core.messages import AssistantMessage
from ink_ls.model.base import ModelRequest, StreamItem
from ink_ls.model.errors import ModelProtocolError, excerpt
from ink_ls.model.sse import SSEEvent


class EventDecoder(Protocol):
    """Splits a response body into events (`sse.SSEDecoder`; one line per event for
    Ollama's native stream)."""

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """The events `chunk` completed."""
        ...

    def close(self) -> list[SSEEvent]:
        """End of the body: a last event that lacked its terminator."""
        ...


class StreamParser(Protocol):
    """Turns one reply's SSE events into stream items; one parser per HTTP attempt."""

    @property
    def cut_off(self) -> str:
        """The sentence for a stream that ended (or dropped) before the reply was complete."""
        ...

    @property
    def finished(self) -> bool:
        """The reply's stop reason arrived: a stream that ends now without the API's end
        marker still holds the whole reply (`end`)."""
        ...

    def feed(self, event: SSEEvent) -> list[StreamItem]:
        """Items for one event; a `ReplyDone` (always last) means the reply is complete.

        Raises `ModelError` for an error the endpoint reported inside the stream."""
        ...

    def end(self) -> AssistantMessage:
        """The whole reply of a `finished` stream that ended without the API's end marker."""
        ...


class Dialect(Protocol):
    """One provider API (Chat Completions, Responses, Anthropic Messages)."""

    @property
    def name(self) -> Provider:
        """The dialect's name: also the key of its fields in messages' `extra`."""
        ...

    def url(self, base_url: str) -> str:
        """The streaming endpoint under `base_url`."""
        ...

    def headers(self, key: str | None) -> dict[str, str]:
        """Request headers, the API key included (never logged)."""
        ...

    def body(self, request: ModelRequest, settings: ModelSettings) -> dict[str, object]:
        """The JSON request body for one streamed reply."""
        ...

    def decoder(self) -> EventDecoder:
        """A fresh framing decoder for one attempt's body."""
        ...

    def parser(self, secret: str | None) -> StreamParser:
        """A fresh parser for one attempt; `secret` is masked in every error text."""
        ...

    def whole_reply(self, raw: bytes, secret: str | None) -> AssistantMessage:
        """A reply sent as one JSON document instead of a stream."""
        ...


def bearer_headers(key: str | None) -> dict[str, str]:
    """A streamed request's headers with the key as a bearer token (OpenAI's APIs)."""
    headers = {"Accept": "text/event-stream"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def whole_object(raw: bytes, secret: str | None, *, field: str, what: str) -> dict[str, Any]:
    """A non-streamed reply's JSON object, which must hold a list under `field`; else
    `ModelProtocolError` naming `what` it should have been (the key never shown)."""
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get(field), list):
        raise ModelProtocolError(
            f"the model endpoint sent a reply that is not {what}: {excerpt(raw, secret)}"
        )
    return data

"""The model-access error tree under `ModelError`: HTTP, transport, protocol, context length.

Messages are whole sentences a user can act on. They never contain the API key: every text
that came from the network passes through `redact` before it is stored in an error.
"""

from __future__ import annotations

import json
import re

from ink_ls.model.base import ModelError

EXCERPT_CHARS = 500


class ModelHTTPError(ModelError):
    """The endpoint answered with a non-2xx status (after any retries)."""

    def __init__(self, status: int, body_excerpt: str, message: str | None = None) -> None:
        self.status = status
        self.body_excerpt = body_excerpt
        super().__init__(message or f"the model endpoint answered HTTP {status}: {body_excerpt}")


class ModelContextLengthError(ModelHTTPError):
    """HTTP 400 saying the conversation does not fit the model's context window."""


class ModelTransportError(ModelError):
    """The endpoint could not be reached, timed out, or the connection dropped."""


class ModelProtocolError(ModelError):
    """The endpoint's answer broke the streaming protocol (garbage, a cut reply, bad shapes)."""


class ModelStreamError(ModelError):
    """The endpoint reported an error inside the stream (llama.cpp's `error:` line,
    `data: {"error": …}`, `event: error`); the message is the server's own."""


def stream_error(payload: str, secret: str | None, *, started: bool) -> ModelError:
    """The error for an in-stream error payload. Before any text, an over-long prompt becomes
    `ModelContextLengthError` so the loop compacts and asks again, as for an HTTP 400."""
    detail = excerpt(payload, secret)
    if not started and _CONTEXT_PATTERNS.search(detail):
        return ModelContextLengthError(
            400,
            detail,
            f"the conversation no longer fits the model's context window ({detail}); "
            "start a new session",
        )
    return ModelStreamError(f"the model endpoint reported an error: {detail}")


_CONTEXT_PATTERNS = re.compile(
    r"context[_ ]length|context window|maximum context|too many tokens|prompt is too long"
    r"|reduce the length|exceeds? the (?:model's )?(?:maximum|max)",
    re.IGNORECASE,
)


def is_context_length_error(status: int, body: str) -> bool:
    """Whether an error response reports an over-long conversation (OpenAI, vLLM, llama.cpp…)."""
    return status in (400, 413) and bool(_CONTEXT_PATTERNS.search(body))


def redact(text: str, secret: str | None) -> str:
    """`text` with every occurrence of `secret` (and of its `Bearer` form) masked."""
    if secret:
        text = text.replace(secret, "[redacted]")
    return text


def excerpt(body: bytes | str, secret: str | None, limit: int = EXCERPT_CHARS) -> str:
    """A short, single-line, key-free excerpt of an error body; the JSON `error.message`
    when the body is an OpenAI-style error object."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        err = data.get("error")
        message = err.get("message") if isinstance(err, dict) else err
        if isinstance(message, str) and message.strip():
            text = message
        elif isinstance(data.get("message"), str):
            text = data["message"]
    text = " ".join(redact(text, secret).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text or "(empty body)"

"""When to try a model request again: `Retry-After` parsing and exponential backoff with jitter.

Pure functions; the client decides what is retryable and does the waiting.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

MAX_RETRY_AFTER = 60.0
"""A longer `Retry-After` is not waited for: the error is reported instead."""
BASE_DELAY = 0.5
MAX_DELAY = 8.0


def parse_retry_after(headers: httpx.Headers) -> float | None:
    """Seconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def backoff_delay(attempt: int, retry_after: float | None, jitter: float) -> float:
    """Seconds before retry number `attempt` (1-based): `retry_after` when the server gave one,
    else 0.5 s doubling per attempt (capped at 8 s), scaled by 0.5–1.0 for `jitter` in [0, 1)."""
    if retry_after is not None:
        return retry_after
    base: float = min(MAX_DELAY, BASE_DELAY * 2.0 ** (attempt - 1))
    return base * (0.5 + jitter / 2)

"""Retry timing: Retry-After in its three spellings, and the backoff curve."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from ink_ls.model.retry import backoff_delay, parse_retry_after


def test_retry_after_seconds_milliseconds_and_dates() -> None:
    assert parse_retry_after(httpx.Headers({"Retry-After": "3"})) == 3.0
    assert parse_retry_after(httpx.Headers({"retry-after-ms": "250", "Retry-After": "9"})) == 0.25
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 < (parse_retry_after(httpx.Headers({"Retry-After": later})) or 0) <= 30
    assert parse_retry_after(httpx.Headers({"Retry-After": "soon"})) is None
    assert parse_retry_after(httpx.Headers({"Retry-After": "-5"})) == 0.0
    assert parse_retry_after(httpx.Headers()) is None


@pytest.mark.parametrize(
    ("attempt", "jitter", "delay"),
    [
        (1, 0.0, 0.25),
        (1, 0.999, 0.49975),
        (2, 0.5, 0.75),
        (3, 0.0, 1.0),
        (10, 0.0, 4.0),
    ],
)
def test_backoff_doubles_with_jitter_and_a_cap(attempt: int, jitter: float, delay: float) -> None:
    assert backoff_delay(attempt, None, jitter) == pytest.approx(delay)


def test_a_server_retry_after_replaces_the_backoff() -> None:
    assert backoff_delay(3, 7.0, 0.9) == 7.0

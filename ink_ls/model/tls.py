"""The TLS context of a model endpoint's HTTP clients, so the CA bundle is read at most once.

httpx builds a verified context (reading the whole CA bundle, ~60 ms) in every client it
makes, used or not. ink-ls makes several per endpoint (the window lookup, each small pool), so
they share one. A plain-http endpoint reached without a proxy never speaks TLS (redirects are
not followed), so its clients get a context that trusts no certificate at all and costs
nothing to make: were TLS ever attempted with it, verification would fail, never pass.
"""

from __future__ import annotations

import functools
import ssl
import urllib.request

import httpx


@functools.cache
def _verified() -> ssl.SSLContext:
    return httpx.create_ssl_context()


def context_for(url: str) -> ssl.SSLContext:
    """The verified context (one per process) unless `url` is plain http with no proxy
    configured in the environment; then a context that verifies against no CA."""
    if url.lower().startswith("http://") and not urllib.request.getproxies():
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # checks hostnames; trusts no CA
    return _verified()

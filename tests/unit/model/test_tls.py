"""The model clients' TLS context: the CA bundle is read once per process, and not at all for a
plain-http endpoint reached without a proxy, whose context then trusts no certificate."""

from __future__ import annotations

import ssl

import pytest

from ink_ls.model.tls import context_for

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)


def test_an_https_endpoint_shares_one_verified_context() -> None:
    first, second = context_for("https://api.example.com/v1"), context_for("HTTPS://other/v1")
    assert first is second
    assert first.verify_mode == ssl.CERT_REQUIRED and first.check_hostname
    assert first.cert_store_stats()["x509_ca"] > 0  # the CA bundle is loaded


def test_plain_http_reads_no_bundle_and_trusts_nothing() -> None:
    ctx = context_for("http://127.0.0.1:8080/v1")
    assert ctx.cert_store_stats()["x509_ca"] == 0
    # were TLS ever tried with it, verification would fail rather than pass
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname


def test_plain_http_through_a_proxy_gets_the_verified_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "https://proxy.example.com:3128")
    ctx = context_for("http://127.0.0.1:8080/v1")
    assert ctx is context_for("https://api.example.com/v1")
    assert ctx.cert_store_stats()["x509_ca"] > 0

"""The terminal sanitiser: every control is made visible or harmless, text stays readable."""

from __future__ import annotations

import json

import pytest

from ink_ls.core.sanitize import clean, clean_line, has_controls, json_safe


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b]52;c;SGk=\x07", "␛]52;c;SGk=␇"),  # clipboard write
        ("\x1b]0;title\x1b\\", "␛]0;title␛\\"),  # window title, ST-terminated
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "␛]8;;http://x␛\\link␛]8;;␛\\"),
        ("\x1b[2J\x1b[H\x1b[1A\x1b[K", "␛[2J␛[H␛[1A␛[K"),  # erase, home, up, erase line
        ("\x9b2J\x9d0;t\x9c", "<U+009B>2J<U+009D>0;t<U+009C>"),  # C1 forms
        ("a\rb", "a\nb"),  # a bare CR cannot return over the line
        ("a\r\nb", "a\nb"),
        ("bell\x07 back\x08 del\x7f nul\x00", "bell␇ back␈ del␡ nul␀"),
        ("left\u202eright", "left<U+202E>right"),  # a direction override
        ("one\u2028two", "one\ntwo"),
        ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
        ("plain ✓ ünïcödé [bold]", "plain ✓ ünïcödé [bold]"),
    ],
)
def test_clean(raw: str, shown: str) -> None:
    assert clean(raw) == shown
    assert has_controls(raw) == (raw != shown)
    assert not has_controls(clean(raw))


def test_clean_line_is_one_line() -> None:
    assert clean_line("a\nb\r\tc\x1b[A") == "a b  c␛[A"


def test_json_safe_escapes_what_json_leaves_raw() -> None:
    value = {"t": "c1 \x9b2J del \x7f sep \u2028 rlo \u202e esc \x1b ok é"}
    text = json_safe(json.dumps(value, ensure_ascii=False))
    assert all(ch not in text for ch in "\x9b\x7f\u2028\u202e\x1b")
    assert "é" in text  # other text stays readable
    assert json.loads(text) == value

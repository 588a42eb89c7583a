"""Text from outside (model, tools, MCP servers, files) made safe to print on a terminal.

The one sanitiser of every terminal front end: no control character reaches the terminal
except newline and tab. Escape sequences (OSC 52 clipboard writes, OSC 0 titles, OSC 8 links,
CSI cursor moves and erases) and C1 controls become visible text instead of acting; a bare
carriage return becomes a line break so it cannot repaint the line above. `json_safe` does the
same for JSON text (`--json`): the controls JSON leaves raw are escaped. Knows nothing of rich.
"""

from __future__ import annotations

import re

_ESC = "\x1b"
_PICTURE_BASE = 0x2400
"""U+2400..U+241F: the Unicode control pictures (␀ … ␛ … ␟)."""
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
"""Direction overrides and marks: text that reads differently from what it is."""
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029"
    "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ufff9-\ufffb]"
)
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(_PICTURE_BASE + code)  # ESC → ␛: `␛]52;c;…` is shown, not obeyed
    if code == 0x7F:
        return "␡"
    if char in ("\u2028", "\u2029"):
        return "\n"
    return f"<U+{code:04X}>"  # C1 (CSI as U+009B …), direction overrides


def clean(text: str) -> str:
    """`text` with every control made harmless: CRLF and a bare CR become `\\n`; ESC, the
    other C0 controls, DEL, C1 and direction overrides become visible placeholders; newline
    and tab stay."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(lambda m: _visible(m.group()), text)


def clean_line(text: str) -> str:
    """`clean(text)` on one line: line breaks become spaces (for titles and table cells)."""
    return clean(text).replace("\n", " ").replace("\t", " ")


def has_controls(text: str) -> bool:
    """True when `clean` would change `text` (for tests and logs)."""
    return "\r" in text or _ESC in text or bool(_UNSAFE.search(text))


def json_safe(dumped: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with DEL, C1, U+2028/U+2029 and
    direction overrides escaped as `\\uXXXX`; `json.dumps` already escapes C0. Only valid on
    JSON output: those characters can only occur inside its strings."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)

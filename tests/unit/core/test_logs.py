"""Log records on stderr are one clean line; a traceback goes to the details file, named."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from ink_ls.core.logs import DetailsHandler, StderrFormatter


def _record(message: str, *, exc: bool) -> logging.LogRecord:
    info = None
    if exc:
        try:
            raise ValueError("bad \x1b]0;title\x07 value\nsecond line")
        except ValueError:
            info = sys.exc_info()
    return logging.LogRecord("mcp.client", logging.WARNING, __file__, 1, message, None, info)


def test_a_traceback_becomes_one_line_naming_the_details_file(tmp_path: Path) -> None:
    details = tmp_path / "logs" / "ink-ls.log"
    line = StderrFormatter(details).format(_record("Failed\x1b[2J to validate", exc=True))
    assert "\n" not in line and "\x1b" not in line and "Traceback" not in line
    assert line.endswith(
        "WARNING mcp.client: Failed␛[2J to validate (ValueError: bad ␛]0;title␇ value "
        f"second line; details in {details})"
    )
    handler = DetailsHandler(details)
    plain = _record("no exception here", exc=False)
    if handler.filter(plain):
        handler.emit(plain)
    assert not details.exists()  # only records with a traceback are written
    handler.handle(_record("Failed to validate", exc=True))
    written = details.read_text()
    assert "Traceback (most recent call last)" in written and "ValueError: bad" in written


def test_a_traceback_inside_the_message_text_is_cut_to_its_last_line(tmp_path: Path) -> None:
    details = tmp_path / "ink-ls.log"
    text = (
        "Unable to deserialize message Traceback (most recent call last):\n"
        "  File \"x.py\", line 1, in f\n    raise TypeError\nTypeError: missing 'params'\n"
    )
    record = logging.LogRecord("pygls", logging.ERROR, __file__, 1, "%s", (text,), None)
    line = StderrFormatter(details).format(record)
    assert line.endswith(
        f"ERROR pygls: Unable to deserialize message (TypeError: missing 'params'; details in "
        f"{details})"
    )
    DetailsHandler(details).handle(record)
    assert 'File "x.py", line 1' in details.read_text()

"""A short fuzz round of each front end's input parser (the LSP frame reader of the real server,
the ACP line reader of the real agent): no crash, no unanswered request, no traceback.
`INK_FUZZ_SECONDS` sets the seconds per front end (default 3); `bench/fuzz.py` runs long."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.fuzz import fuzz

SECONDS = float(os.environ.get("INK_FUZZ_SECONDS", "3"))


@pytest.mark.timeout(max(120, int(SECONDS * 3)))
@pytest.mark.parametrize("front_end", ["lsp", "acp"])
def test_fuzzed_input_is_answered_and_survived(front_end: str, tmp_path: Path) -> None:
    figures = fuzz(front_end, SECONDS, tmp_path)
    assert figures.inputs >= 10, figures.line(front_end, SECONDS)
    assert (figures.crashes, figures.unanswered, figures.tracebacks) == (0, 0, 0), (
        figures.line(front_end, SECONDS) + "\n" + "\n".join(figures.problems)
    )
    assert figures.errors[-32700] + figures.errors[-32600] > 0  # malformed input was answered

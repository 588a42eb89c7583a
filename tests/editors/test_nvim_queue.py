"""The Neovim chat's line for a prompt waiting for the model endpoint (headless Neovim)."""

from __future__ import annotations

from pathlib import Path

from tests.editors.test_nvim import assert_passed, run_nvim


def test_the_queue_line_in_headless_nvim(tmp_path: Path) -> None:
    run = run_nvim("queue_spec.lua", tmp_path, timeout=60)
    assert_passed(run, ["queue: one line per wait, with the place on arrival"])

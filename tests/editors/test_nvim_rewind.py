"""`:Ink rewind` in a real headless Neovim against the real server and a scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.editors.test_nvim import _case_of, _run_with_model, assert_passed
from tests.fakes.model_server import FakeModelServer, Reply, text, tool, tools

SCRIPT: dict[str, list[Reply]] = {
    "rw1": [tool("write", {"path": "a.py", "content": "print('one')\n"}), text("wrote a.py")],
    "rw2": [
        tools(
            ("edit", {"path": "a.py", "edits": [{"oldText": "one", "newText": "two"}]}),
            ("bash", {"command": "echo made > b.txt && rm c.txt && chmod +x run.sh"}),
        ),
        text("done"),
    ],
}

CASES = [
    "rewind: files come back, the open buffer follows, the quickfix lists the hunks",
    "review: the session's changed hunks in the quickfix list",
    "rewind: an unsaved buffer edit is a conflict the user is asked about",
]


def _respond(payload: dict[str, Any]) -> Reply:
    tag, step = _case_of(payload)
    return SCRIPT[tag][step]


@pytest.mark.timeout(180)
def test_ink_rewind_in_neovim(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with FakeModelServer() as model:
        model.push(*([_respond] * 10))
        run = _run_with_model("rewind_spec.lua", tmp_path, ws, model)
    assert_passed(run, CASES)

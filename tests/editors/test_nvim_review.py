"""Review in a real headless Neovim against the real server and a scripted model: an edited
proposal lands (and the model is told), and the `:Ink review` list reverts hunks and files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import tool_results
from tests.editors.test_nvim import _case_of, _run_with_model, assert_passed
from tests.fakes.model_server import FakeModelServer, Reply, text, tool, tools

SCRIPT: dict[str, list[Reply]] = {
    "ep": [
        tool("edit", {"path": "app.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]}),
        text("done"),
    ],
    "hk": [
        tools(
            (
                "edit",
                {
                    "path": "h.txt",
                    "edits": [
                        {"oldText": "l2", "newText": "L2"},
                        {"oldText": "l8", "newText": "L8"},
                    ],
                },
            ),
            ("write", {"path": "new.txt", "content": "fresh\n"}),
        ),
        text("done"),
    ],
}

CASES = [
    "edited proposal: the user edits the proposed side, their version is written",
    "review: x reverts the hunk under the cursor, X a whole file, on disk and in the buffer",
]


def _respond(payload: dict[str, Any]) -> Reply:
    tag, step = _case_of(payload)
    return SCRIPT[tag][step]


@pytest.mark.timeout(180)
def test_review_in_neovim(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with FakeModelServer() as model:
        model.push(*([_respond] * 10))
        run = _run_with_model("review_spec.lua", tmp_path, ws, model)
        told = [r for r in model.requests if _case_of(r) == ("ep", 1)]
    assert_passed(run, CASES)
    (result,) = tool_results(told[0])
    assert result.startswith(
        "Edited app.py: 1 edit applied.\nThe user modified your proposed change before "
        "accepting it: app.py holds their version, not yours."
    ), result
    assert "-x = 2\n+x = 20  # mine\n" in result

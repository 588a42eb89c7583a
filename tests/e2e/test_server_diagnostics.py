"""The editor's diagnostics reach the model, through the server (pytest-lsp client playing an
editor whose "language server" flags lines containing BAD (error) or `unused` (warning) and
publishes them a little after each change, like a real one)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from ink_ls.editor.documents import path_to_uri
from ink_ls.protocol import methods
from tests.e2e.conftest import InkClient, Starter, tool_results
from tests.fakes.model_server import FakeModelServer, text, tool

APP = "import os\nx = BAD\n"


def lint(text: str) -> list[dict[str, Any]]:
    out = []
    for n, line in enumerate(text.splitlines()):
        for word, severity, code in (("BAD", 1, "E1"), ("unused", 2, "W2")):
            col = line.find(word)
            if col >= 0:
                out.append(
                    {
                        "range": {
                            "start": {"line": n, "character": col},
                            "end": {"line": n, "character": col + len(word)},
                        },
                        "severity": severity,
                        "code": code,
                        "source": "fakelint",
                        "message": f"{word} found",
                    }
                )
    return out


class Linter:
    """The editor's diagnostics of .py files: like an editor asked about a file, it (re)loads
    it, answers with what it has now, and republishes 50 ms later if the text changed."""

    def __init__(self, client: InkClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.published: dict[str, list[dict[str, Any]]] = {}
        self.linted: dict[str, str] = {}
        self.asked: list[list[str] | None] = []

    def publish(self, path: Path) -> None:
        uri = path_to_uri(path)
        text = path.read_text() if path.exists() else ""
        self.linted[uri] = text
        self.published[uri] = lint(text)
        self.client.protocol.notify(methods.DIAGNOSTICS_CHANGED, {"uris": [uri]})

    async def answer(self, params: dict[str, Any]) -> dict[str, Any]:
        self.asked.append(params.get("uris"))
        uris = params.get("uris") or list(self.published)
        loop = asyncio.get_running_loop()
        for uri in uris:
            path = Path(uri.removeprefix("file://"))
            current = path.read_text() if path.exists() else ""
            if uri.endswith(".py") and self.linted.get(uri) != current:
                self.linted[uri] = current
                loop.call_later(0.05, self.publish, path)
        return {
            "items": [
                {"uri": u, "diagnostics": self.published.get(u, []), "watched": u.endswith(".py")}
                for u in uris
            ]
        }


async def _start(start: Starter, workspace: Path) -> tuple[InkClient, Linter]:
    (workspace / "app.py").write_text(APP)
    client = await start(
        approval="auto",
        experimental={"ink": {"diagnostics": True, "reviewsApplyEdit": False}},
    )
    linter = Linter(client, workspace)
    client.on_diagnostics = linter.answer
    linter.publish(workspace / "app.py")
    return client, linter


@pytest.mark.parametrize("preset", ["visual_studio_code"])
async def test_an_edit_reports_the_problems_it_introduced_and_not_the_old_ones(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    client, linter = await _start(start, workspace)
    model.push(
        tool(
            "edit",
            {
                "path": "app.py",
                "edits": [
                    {
                        "oldText": "import os\n",
                        "newText": "import os\nimport unused_mod\ny = BAD + 1\n",
                    }
                ],
            },
        ),
        tool("diagnostics", {}),
        text("Two new problems."),
    )
    result = await client.prompt("add two lines to app.py")
    assert result["stopReason"] == "end_turn"
    [edited, listed] = tool_results(model.requests[2])
    assert edited.endswith(
        "[The editor reports 2 new problem(s) in app.py after this change (errors and warnings "
        "that were not there before):]\n"
        "app.py:2:8: warning [fakelint W2] unused found\n"
        "app.py:3:5: error [fakelint E1] BAD found"
    )
    assert "app.py:4:" not in edited  # `x = BAD` moved from line 2 to 4: not new
    assert listed.splitlines() == [
        "app.py:2:8: warning [fakelint W2] unused found",
        "app.py:3:5: error [fakelint E1] BAD found",
        "app.py:4:5: error [fakelint E1] BAD found",
    ]
    assert linter.asked[-1] is None  # the workspace's problems
    names = [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert "diagnostics" in names


@pytest.mark.parametrize("preset", ["neovim"])
async def test_a_clean_change_says_so_and_without_the_capability_nothing_changes(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    client, _ = await _start(start, workspace)
    model.push(
        tool("write", {"path": "ok.py", "content": "print(1)\n"}),
        text("Done."),
        tool("write", {"path": "notes.txt", "content": "BAD words\n"}),
        text("Done."),
    )
    first = await client.prompt("write ok.py")
    assert tool_results(model.requests[1]) == [
        "Created ok.py (1 lines, 9 bytes)\n\n"
        "[The editor reports no new errors or warnings in ok.py after this change.]"
    ]
    second = await client.prompt("write notes", sessionId=first["sessionId"])
    assert second["stopReason"] == "end_turn"
    # nothing in the editor lints .txt files: the result says nothing about diagnostics
    assert tool_results(model.requests[3])[-1] == "Created notes.txt (1 lines, 10 bytes)"

    plain = await start(approval="auto")  # no experimental.ink.diagnostics
    model.push(tool("write", {"path": "b.py", "content": "x = BAD\n"}), text("Done."))
    await plain.prompt("write b.py")
    assert tool_results(model.requests[5]) == ["Created b.py (1 lines, 8 bytes)"]
    assert "diagnostics" not in [t["function"]["name"] for t in model.requests[4]["tools"]]

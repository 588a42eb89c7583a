"""A rename whose proposal the user edits before accepting, through the real server: the
`lsp` tool's rename of three files is one `workspace/applyEdit`; the reviewing client changes
two of the files' proposed sides (one saved, one left in its buffer) and answers
`{"applied": true, "ink": {"edited": true, "files": [...]}}`. The files hold the user's
versions, and the model is told which files the user changed, with a diff for each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ink_ls.editor.documents import path_to_uri
from tests.e2e.conftest import InkClient, Starter, tool_results
from tests.fakes.model_server import FakeModelServer, text, tool

UTIL = "def greet(name):\n    return name\n"
MAIN = "from util import greet\n\nx = greet('w')\n"
OTHER = "import util\n\nutil.greet('o')\n"
CAPS = {"ink": {"languageFeatures": True, "reviewsApplyEdit": True}}
RENAME = {"operation": "rename", "path": "main.py", "line": 3, "symbol": "greet"}
USER_UTIL = 'def salute(name):\n    """Say it."""\n    return name\n'
USER_MAIN = "from util import salute\n\nx = salute('world')\n"


def _range(line: int, start: int) -> dict[str, Any]:
    return {
        "start": {"line": line, "character": start},
        "end": {"line": line, "character": start + 5},
    }


def _edit(root: Path, new: str) -> dict[str, Any]:
    """What the editor's language server answers for the rename: three files' edits."""
    spots = {"util.py": [(0, 4)], "main.py": [(0, 17), (2, 4)], "other.py": [(2, 5)]}
    return {
        "documentChanges": [
            {
                "textDocument": {"uri": path_to_uri(root / name), "version": None},
                "edits": [{"range": _range(line, col), "newText": new} for line, col in where],
            }
            for name, where in spots.items()
        ]
    }


async def _start(start: Starter, workspace: Path, model: FakeModelServer) -> InkClient:
    for name, body in (("util.py", UTIL), ("main.py", MAIN), ("other.py", OTHER)):
        (workspace / name).write_text(body, encoding="utf-8")
    client = await start(experimental=CAPS)
    client.open("util.py", UTIL)
    client.open("main.py", MAIN)

    async def servers(params: dict[str, Any]) -> dict[str, Any]:
        if params["operation"] != "rename":
            return {"available": False}
        return {"available": True, "result": _edit(workspace, params["newName"])}

    client.on_language_features = servers
    model.push(tool("lsp", {**RENAME, "new_name": "salute"}), text("Renamed."))
    return client


def _user_edits(client: InkClient, answer: dict[str, Any], other: str | None = None) -> Any:
    """The user changes util.py (the client saves it) and main.py (left in its buffer) in the
    review; other.py is applied as proposed unless `other` says what lands there instead."""
    seen: list[dict[str, Any]] = []

    async def handler(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params)
        ws = client.workspace
        client.change("util.py", USER_UTIL)
        (ws / "util.py").write_text(USER_UTIL, encoding="utf-8")
        client.change("main.py", USER_MAIN)  # not saved: the server reads the buffer
        landed = OTHER.replace("greet", "salute") if other is None else other
        (ws / "other.py").write_text(landed, encoding="utf-8")  # not open: straight to disk
        return answer

    client.on_apply_edit = handler
    return seen


@pytest.mark.parametrize("named", [True, False], ids=["files-named", "files-not-named"])
async def test_the_users_versions_of_two_files_land_and_the_model_sees_each_diff(
    start: Starter, model: FakeModelServer, workspace: Path, named: bool
) -> None:
    client = await _start(start, workspace, model)
    ink: dict[str, Any] = {"edited": True}
    if named:
        ink["files"] = [path_to_uri(workspace / "util.py"), path_to_uri(workspace / "main.py")]
    seen = _user_edits(client, {"applied": True, "ink": ink})

    result = await client.prompt("rename greet to salute")
    assert result["stopReason"] == "end_turn"
    [params] = seen  # one decision for the three files
    edit = params["edit"]
    uris = [c["textDocument"]["uri"] for c in edit.get("documentChanges", [])]
    assert sorted(uris or edit["changes"]) == sorted(
        path_to_uri(workspace / n) for n in ("main.py", "other.py", "util.py")
    )
    assert (workspace / "util.py").read_text() == USER_UTIL
    assert (workspace / "main.py").read_text() == USER_MAIN  # from its buffer
    assert (workspace / "other.py").read_text() == OTHER.replace("greet", "salute")
    [output] = tool_results(model.wait_requests(2)[1])
    assert output.startswith(
        "Renamed to salute in 3 file(s):\nmain.py: 2 edits\nother.py: 1 edit\nutil.py: 1 edit\n"
        "The user modified your proposed change before accepting it, in 2 of 3 files: "
        "main.py, util.py hold their version, not yours (the other files are as you proposed)."
    )
    assert (
        "--- main.py (your proposal)\n+++ main.py (written)\n@@ -1,3 +1,3 @@\n"
        " from util import salute\n \n-x = salute('w')\n+x = salute('world')\n"
    ) in output
    assert "--- util.py (your proposal)\n+++ util.py (written)\n" in output
    assert '+    """Say it."""\n' in output
    assert "other.py (your proposal)" not in output
    assert output.endswith("Read those files again before changing them further.")


async def test_a_file_the_answer_does_not_name_must_hold_the_proposal(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    """A client that names the files the user edited vouches for no other: a different text
    in another file is a change made meanwhile, and the call says so instead of taking it."""
    client = await _start(start, workspace, model)
    named = [path_to_uri(workspace / "util.py"), path_to_uri(workspace / "main.py")]
    _user_edits(client, {"applied": True, "ink": {"edited": True, "files": named}}, "# mine\n")

    await client.prompt("rename greet to salute")
    [output] = tool_results(model.wait_requests(2)[1])
    assert output == (
        'Tool "lsp" blocked by user: the file changed while the approval was pending; '
        "read it again and redo the change"
    )

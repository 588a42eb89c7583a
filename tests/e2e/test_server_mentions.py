"""@-mentions through the server (pytest-lsp client playing the editor): `@file` attaches the
open buffer's unsaved text, `@selection` the prompt's range, `@problems` the editor's
diagnostics; a prompt file's body goes through the same mentions."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import Starter
from tests.e2e.test_server_diagnostics import Linter
from tests.e2e.test_server_slash import user_text
from tests.fakes.model_server import FakeModelServer, text


async def test_a_mentioned_file_is_the_unsaved_buffer(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "app.py").write_text("saved = 1\n")
    client = await start()
    client.open("app.py", "saved = 1\n")
    client.change("app.py", "unsaved = 2\nmore = 3\n")
    model.push(text("ok"))
    result = await client.prompt("what does @app.py#L2 do? and @app.py? not me@host")
    assert result["stopReason"] == "end_turn"
    assert user_text(model.requests[0]) == "\n\n".join(
        [
            "what does @app.py#L2 do? and @app.py? not me@host",
            '<file path="app.py" lines="2-2">\nmore = 3\n</file>',
            '<file path="app.py">\nunsaved = 2\nmore = 3\n</file>',
        ]
    )


async def test_selection_is_the_prompts_range_before_the_context(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    client = await start()
    uri = client.open("app.py", "a = 1\nb = 20\nc = 3\n")
    model.push(text("ok"))
    rng = {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}
    await client.prompt("explain @selection", textDocument={"uri": uri}, range=rng)
    assert user_text(model.requests[0]) == "\n\n".join(
        [
            "explain @selection",
            '<selection path="app.py" lines="2-2">\nb = 20\n\n</selection>',
            "Context: the user is looking at app.py (lines 2-2), selected text:\n"
            "```\nb = 20\n\n```",
        ]
    )
    model.push(text("ok"))
    await client.prompt("no range, so @selection stays as typed")
    assert user_text(model.requests[1]) == "no range, so @selection stays as typed"


@pytest.mark.parametrize("preset", ["visual_studio_code"])
async def test_problems_are_the_editors_diagnostics(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "app.py").write_text("import os\nx = BAD\n")
    (workspace / "b.py").write_text("unused = 1\n")
    client = await start(experimental={"ink": {"diagnostics": True}})
    linter = Linter(client, workspace)
    client.on_diagnostics = linter.answer
    linter.publish(workspace / "app.py")
    linter.publish(workspace / "b.py")
    (workspace / ".claude" / "commands").mkdir(parents=True)
    (workspace / ".claude" / "commands" / "fix.md").write_text("Fix @problems in $ARGUMENTS.")
    model.push(text("ok"))
    await client.prompt("/fix the project")
    assert user_text(model.requests[0]) == "\n\n".join(
        [
            "Fix @problems in the project.",
            "<problems>\napp.py:2:5: error [fakelint E1] BAD found\n"
            "b.py:1:1: warning [fakelint W2] unused found\n</problems>",
        ]
    )

"""ink-ls through Emacs' eglot (1.9, Debian `elpa-eglot`): an LSP client with no ink plugin, in
batch mode. A region is selected and "Ink: explain this" picked from eglot's code-action menu
(the short answer is shown with `window/showMessage`); `ink.ask` runs through
`eglot-execute-command`, the scripted model edits the file, eglot shows our confirmation and
applies the edit to the buffer, and it is on disk; "Ink: ask about this…" sends the selected
text as the request."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.editors._procs import TAG_VAR, kill_tagged
from tests.fakes.model_server import FakeModelServer, text, tool

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
APP = 'def greet():\n    print("hi")\n\n# TODO: make greet shout\ngreet()\n'
RENAMED = APP.replace("greet", "hello")
LONG = (
    "Renamed greet to hello in app.py: the definition and the call at the bottom. "
    + "Nothing else referred to it. " * 12
).strip()


@pytest.fixture
def model() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


def test_eglot_code_actions_and_execute_command(tmp_path: Path, model: FakeModelServer) -> None:
    emacs = shutil.which("emacs")
    assert emacs, "emacs is missing: run tests/editors/emacs/setup-tests"
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text(APP)
    report = tmp_path / "report.json"
    model.push(
        tool("read", {"path": "app.py"}),
        text("app.py defines greet(), which prints hi."),
        tool(
            "edit",
            {
                "path": "app.py",
                "edits": [
                    {"oldText": "def greet():", "newText": "def hello():"},
                    {
                        "oldText": "# TODO: make greet shout\ngreet()",
                        "newText": "# TODO: make hello shout\nhello()",
                    },
                ],
            },
        ),
        text(LONG),
        text("Added the shout to the TODO list."),
    )
    tag = f"ink-emacs-{os.getpid()}"
    env = {
        **os.environ,
        "INK_TEST_WS": str(ws),
        "INK_TEST_REPORT": str(report),
        "INK_TEST_SERVER": "\x1f".join([sys.executable, "-m", "ink_ls", "--stdio"]),
        "INK_BASE_URL": model.base_url,
        "INK_MODEL": "fake-model",
        "INK_API_KEY": "sk-test-emacs",
        "INK_STATE_DIR": str(tmp_path / "state"),
        "PYTHONPATH": str(REPO),
        "HOME": str(tmp_path),
        TAG_VAR: tag,
    }
    env.pop("OPENAI_API_KEY", None)
    try:
        done = subprocess.run(
            [emacs, "--batch", "-q", "-l", str(HERE / "emacs/ink-eglot-test.el")],
            env=env,
            cwd=ws,
            capture_output=True,
            text=True,
            timeout=110,
        )
    finally:
        kill_tagged(tag)
    assert done.returncode == 0, done.stderr[-5000:]
    got = json.loads(report.read_text())

    assert got["commands"] == ["ink.ask", "ink.cancel"]
    assert got["titles"] == ["Ink: explain this", "Ink: ask about this…"]
    assert got["ask"] == {"sessionId": got["ask"]["sessionId"], "started": True}
    # the explanation: a short answer, shown as a message
    assert "Ink: app.py defines greet(), which prints hi." in got["messages"]
    # the edit: our confirmation was asked through eglot, then eglot applied it to the buffer
    edit_questions = [q for q in got["questions"] if "Ink wants to edit" in q]
    assert len(edit_questions) == 1 and "app.py" in edit_questions[0]
    assert got["buffer"] == RENAMED
    assert (ws / "app.py").read_text() == RENAMED
    # a long answer without showDocument: the message carries it and the transcript's path
    assert "Ink: Renamed greet to hello in app.py" in got["messages"]
    transcripts = list((tmp_path / "state/transcripts").glob("*.md"))
    assert len(transcripts) == 1 and str(transcripts[0]) in got["messages"]
    assert LONG in transcripts[0].read_text()
    # the selection went with each request; "ask about this…" made the selection the request
    first = json.dumps(model.requests[0]["messages"])
    assert "Explain what the selected code does" in first and "def greet():" in first
    last = json.dumps(model.requests[-1]["messages"])
    assert "The selected text is my request" in last and "TODO: make hello shout" in last
    assert "Ink: Added the shout to the TODO list." in got["messages"]

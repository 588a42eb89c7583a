"""In headless Neovim against the real server and a scripted model: the to-do checklist in the
chat (tests/editors/nvim/todo_spec.lua), and the plugin's `hooks` / `permissions` options
applied and dropped while the server runs (settings_spec.lua)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.editors import test_nvim
from tests.editors.test_nvim import _run_with_model, _workspace, assert_passed
from tests.fakes.model_server import FakeModelServer, text, tool


def _todos(*states: str) -> dict[str, object]:
    names = ["read the README", "count the words", "sum up"]
    return {"todos": [{"content": n, "status": s} for n, s in zip(names, states, strict=True)]}


SCRIPT = {
    "todo": [
        tool("todo_write", _todos("in_progress", "pending", "pending")),
        tool("read", {"path": "README.md"}),
        tool("todo_write", _todos("completed", "in_progress", "pending")),
        tool("bash", {"command": "wc -w README.md"}),
        tool("todo_write", _todos("completed", "completed", "completed")),
        text("Eight words."),
    ],
    **{
        f"rm-{n}": [tool("bash", {"command": f"rm {n}.txt"}), text("Tried.")]
        for n in ("a", "b", "c", "d")
    },
    "todo-again": [
        tool("todo_write", {"todos": [{"content": "the one step", "status": "in_progress"}]}),
        text("Done."),
    ],
}

CASES = [
    "chat_todos: a list of todo_write arguments, its lines; anything else is not a list",
    "todo_write is one checklist in the chat, rewritten in place as the list changes",
    "a new session starts a new checklist",
]


@pytest.mark.timeout(180)
def test_todo_checklist_in_the_chat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(test_nvim, "SCRIPT", {**test_nvim.SCRIPT, **SCRIPT})
    ws = _workspace(tmp_path)
    with FakeModelServer() as model:
        run = _run_with_model("todo_spec.lua", tmp_path, ws, model)
    assert_passed(run, CASES)


@pytest.mark.timeout(180)
def test_hooks_and_permissions_options_follow_setup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(test_nvim, "SCRIPT", {**test_nvim.SCRIPT, **SCRIPT})
    ws = _workspace(tmp_path)
    for n in "abcd":
        (ws / f"{n}.txt").write_text("x\n")
    guard = tmp_path / "guard.py"
    guard.write_text(
        "import json, sys\n"
        "p = json.load(sys.stdin)\n"
        "if p['tool_input']['command'].startswith('rm '):\n"
        "    print('rm is refused by the hook', file=sys.stderr); sys.exit(2)\n"
    )
    with FakeModelServer() as model:
        run = _run_with_model(
            "settings_spec.lua", tmp_path, ws, model, INK_TEST_GUARD=f"{sys.executable} {guard}"
        )
        results = [
            m["content"]
            for r in model.requests
            for m in r["messages"]
            if m["role"] == "tool" and "rm b.txt" not in str(m)
        ]
    assert_passed(
        run,
        [
            "setup() with hooks and permissions while ink-ls runs applies them; without them "
            "drops them"
        ],
    )
    assert 'Tool "bash" blocked by PreToolUse hook: rm is refused by the hook' in results

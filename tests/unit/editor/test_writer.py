"""The approving FileWriter on real files with a scripted editor: approval, disk, staleness."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ink_ls.agent.approval import ApprovalGate, ApprovalQuestion, Choice
from ink_ls.agent.writes import PolicyWriter
from ink_ls.core.signal import NEVER, CancelController, CancelSignal
from ink_ls.core.tool import ChangeRejectedError
from ink_ls.editor.client import ClientFeatures
from ink_ls.editor.documents import OpenDocuments, path_to_uri
from ink_ls.editor.writer import STALE, EditorChanges, change_summary
from ink_ls.protocol import methods

VSCODE = ClientFeatures(
    work_done_progress=True,
    document_changes=True,
    create_files=True,
    change_annotations=True,
    action_option_ids=True,
    reviews_apply_edit=True,
    ink_plugin=True,
)
GENERIC = ClientFeatures(work_done_progress=True, action_option_ids=True)


class Editor:
    """A scripted editor: `on_edit(params)` answers applyEdit."""

    def __init__(self, on_edit: Callable[[dict[str, Any]], Any] | None = None) -> None:
        self.edits: list[dict[str, Any]] = []
        self.on_edit = on_edit or (lambda params: {"applied": True})

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        assert method == methods.APPLY_EDIT
        self.edits.append(params)
        answer = self.on_edit(params)
        if asyncio.iscoroutine(answer):
            return await answer
        return answer

    def notify(self, method: str, params: dict[str, Any]) -> None:
        raise AssertionError("no notifications expected")


class Asker:
    def __init__(self, choice: Choice | None) -> None:
        self.choice = choice
        self.questions: list[ApprovalQuestion] = []

    async def __call__(self, question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        self.questions.append(question)
        return self.choice


def writer(
    tmp_path: Path,
    editor: Editor,
    *,
    features: ClientFeatures = VSCODE,
    mode: str = "ask",
    asker: Asker | None = None,
    docs: OpenDocuments | None = None,
    timeout: float = 5.0,
) -> PolicyWriter:
    """The editor's writer as the turn builder makes it: the one policy, the editor's channel."""
    prompter = asker or Asker("allow_once")
    gate = ApprovalGate(mode, prompter, timeout)  # type: ignore[arg-type]
    changes = EditorChanges(editor, features, docs or OpenDocuments(), tmp_path, prompter, timeout)
    return PolicyWriter(gate, changes)


async def write(
    w: PolicyWriter, path: Path, new: str, old: str | None, signal: CancelSignal = NEVER
) -> None:
    await w.write_text(
        path, new, old_text=old, tool_name="edit", tool_call_id="call_7", signal=signal
    )


async def test_reviewing_client_gets_a_versioned_annotated_edit_and_disk_is_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("old\n")
    docs = OpenDocuments()
    docs.did_open(path_to_uri(path), "old\n", 4)
    editor = Editor()
    await write(writer(tmp_path, editor, docs=docs), path, "new\n", "old\n")
    (params,) = editor.edits
    assert params["label"] == "ink: edit a.txt (call_7)"
    (change,) = params["edit"]["documentChanges"]
    assert change["textDocument"] == {"uri": path_to_uri(path), "version": 4}
    assert change["edits"] == [
        {
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}},
            "newText": "new\n",
            "annotationId": "ink-call_7",
        }
    ]
    assert params["edit"]["changeAnnotations"] == {
        "ink-call_7": {"label": "ink: edit a.txt (call_7)", "needsConfirmation": True}
    }
    assert path.read_text() == "new\n"  # the client only changed its buffer: we wrote disk


async def test_new_file_is_created_first(tmp_path: Path) -> None:
    editor = Editor()
    path = tmp_path / "sub" / "new.txt"
    await write(writer(tmp_path, editor), path, "hi\n", None)
    create, text_edit = editor.edits[0]["edit"]["documentChanges"]
    assert create == {
        "kind": "create",
        "uri": path_to_uri(path),
        "options": {"ignoreIfExists": True},
    }
    assert text_edit["textDocument"]["version"] is None
    assert path.read_text() == "hi\n"


async def test_generic_client_is_asked_first_and_gets_plain_changes(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one\ntwo\n")
    editor, asker = Editor(), Asker("allow_always")
    w = writer(tmp_path, editor, features=GENERIC, asker=asker)
    await write(w, path, "one\n2\nthree\n", "one\ntwo\n")
    (question,) = asker.questions
    assert (question.kind, question.title) == (
        "change",
        "edit a.txt (call_7): 1 line removed, 2 added",
    )
    assert list(editor.edits[0]["edit"]) == ["changes"]
    await write(w, path, "again\n", "one\n2\nthree\n")  # always allowed: not asked again
    assert len(asker.questions) == 1 and len(editor.edits) == 2
    assert path.read_text() == "again\n"


@pytest.mark.parametrize(
    ("choice", "reason"),
    [
        ("reject", "the user rejected this change"),
        (None, "the approval prompt was dismissed"),
    ],
)
async def test_generic_client_refusal(tmp_path: Path, choice: Choice | None, reason: str) -> None:
    path = tmp_path / "a.txt"
    path.write_text("old")
    editor = Editor()
    with pytest.raises(ChangeRejectedError) as info:
        await write(
            writer(tmp_path, editor, features=GENERIC, asker=Asker(choice)), path, "new", "old"
        )
    assert (info.value.source, info.value.reason) == ("user", reason)
    assert editor.edits == [] and path.read_text() == "old"


async def test_rejected_edit_keeps_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("old")
    editor = Editor(lambda p: {"applied": False, "failureReason": "Rejected in the diff view"})
    with pytest.raises(ChangeRejectedError) as info:
        await write(writer(tmp_path, editor), path, "new", "old")
    assert info.value.reason == "Rejected in the diff view"
    assert path.read_text() == "old"


async def test_editor_error_is_a_refusal(tmp_path: Path) -> None:
    def boom(params: dict[str, Any]) -> Any:
        raise RuntimeError("no such buffer")

    path = tmp_path / "a.txt"
    path.write_text("old")
    with pytest.raises(ChangeRejectedError) as info:
        await write(writer(tmp_path, Editor(boom)), path, "new", "old")
    assert info.value.reason == "the editor could not apply the edit: no such buffer"


async def test_disk_changed_while_pending_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("old")

    def user_saves_elsewhere(params: dict[str, Any]) -> Any:
        path.write_text("the user's text")
        return {"applied": True}

    with pytest.raises(ChangeRejectedError) as info:
        await write(writer(tmp_path, Editor(user_saves_elsewhere)), path, "new", "old")
    assert info.value.reason == STALE
    assert path.read_text() == "the user's text"


async def test_text_read_before_a_change_must_still_be_current(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("changed since the read")
    editor = Editor()
    with pytest.raises(ChangeRejectedError) as info:
        await write(writer(tmp_path, editor), path, "new", "what the tool read")
    assert info.value.reason == STALE and editor.edits == []


async def test_timeout_and_cancel_while_waiting(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("old")
    never = asyncio.Event()

    async def hang(params: dict[str, Any]) -> Any:
        await never.wait()

    with pytest.raises(ChangeRejectedError) as info:
        await write(writer(tmp_path, Editor(hang), timeout=0.05), path, "new", "old")
    assert info.value.reason == "no answer to the approval prompt within 0.05s"

    controller = CancelController()
    controller.cancel("stop")
    with pytest.raises(ChangeRejectedError) as info:
        await write(writer(tmp_path, Editor(hang)), path, "new", "old", controller.signal)
    assert info.value.reason == "cancelled while waiting for approval"
    assert path.read_text() == "old"


async def test_auto_and_readonly(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    editor = Editor()
    await write(writer(tmp_path, editor, mode="auto"), path, "auto", None)
    assert path.read_text() == "auto" and editor.edits == []
    with pytest.raises(ChangeRejectedError) as info:
        await write(writer(tmp_path, editor, mode="readonly"), path, "ro", "auto")
    assert (info.value.source, info.value.reason) == (
        "policy",
        "approval mode is readonly: files are not changed",
    )
    assert path.read_text() == "auto"


def test_change_summary() -> None:
    assert change_summary(None, "a\nb\n") == "new file, 2 lines"
    assert change_summary("a\nb\n", "a\nc\n") == "1 line removed, 1 added"
    assert change_summary("a\n", "a\n") == "0 lines removed, 0 added"


async def test_new_file_without_create_support_uses_plain_changes(tmp_path: Path) -> None:
    editor = Editor()
    features = ClientFeatures(document_changes=True, reviews_apply_edit=True)
    path = tmp_path / "new.txt"
    await write(writer(tmp_path, editor, features=features), path, "hi\n", None)
    assert editor.edits[0]["edit"] == {
        "changes": {
            path_to_uri(path): [
                {
                    "range": {
                        "start": {"line": 0, "character": 0},
                        "end": {"line": 0, "character": 0},
                    },
                    "newText": "hi\n",
                }
            ]
        }
    }
    assert path.read_text() == "hi\n"


@pytest.mark.parametrize("features", [VSCODE, GENERIC], ids=["reviewing", "generic"])
async def test_auto_sends_an_open_document_through_a_pre_approved_edit(
    tmp_path: Path, features: ClientFeatures
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("saved\n")
    docs = OpenDocuments()
    docs.did_open(path_to_uri(path), "unsaved\n", 3)
    editor, asker = Editor(), Asker("reject")
    w = writer(tmp_path, editor, features=features, mode="auto", asker=asker, docs=docs)
    await write(w, path, "unsaved, edited\n", "unsaved\n")
    (params,) = editor.edits
    assert asker.questions == []  # nobody is asked
    # the extra member goes to our plugins only (eglot 1.9 fails a request with unknown keys)
    assert params.get("ink") == ({"approved": True} if features.ink_plugin else None)
    assert params["label"] == "ink: edit a.txt (call_7)"
    edit = params["edit"]
    if features.change_annotations:
        (change,) = edit["documentChanges"]
        assert change["textDocument"]["version"] == 3
        assert change["edits"][0]["range"]["end"] == {"line": 1, "character": 0}
        assert edit["changeAnnotations"]["ink-call_7"]["needsConfirmation"] is False
    else:
        assert "changeAnnotations" not in edit
    assert path.read_text() == "unsaved, edited\n"  # the buffer's text plus the edit, on disk


async def test_auto_edit_the_editor_did_not_apply_is_an_editor_failure(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    docs = OpenDocuments()
    docs.did_open(path_to_uri(path), "x\n", 1)
    editor = Editor(lambda params: {"applied": False, "failureReason": "version mismatch"})
    with pytest.raises(ChangeRejectedError) as info:
        await write(writer(tmp_path, editor, mode="auto", docs=docs), path, "y\n", "x\n")
    assert (info.value.source, info.value.reason) == (
        "editor",
        "the editor did not apply the edit: version mismatch",
    )
    assert path.read_text() == "x\n"


async def test_auto_refuses_when_the_buffer_moved_past_what_the_tool_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    docs = OpenDocuments()
    docs.did_open(path_to_uri(path), "typed\n", 2)
    editor = Editor()
    with pytest.raises(ChangeRejectedError) as info:
        await write(writer(tmp_path, editor, mode="auto", docs=docs), path, "y\n", "x\n")
    assert info.value.reason == STALE
    assert editor.edits == [] and path.read_text() == "x\n"

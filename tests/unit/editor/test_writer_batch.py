"""Several files under one decision (`PolicyWriter.write_texts`, a rename): one applyEdit for
an editor that reviews it, one question for one that does not, nothing written when refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ink_ls.agent.approval import ApprovalGate
from ink_ls.agent.writes import DiskChannel, PolicyWriter
from ink_ls.core.signal import NEVER
from ink_ls.core.tool import ChangeRejectedError, TextChange
from ink_ls.editor.documents import OpenDocuments
from tests.unit.editor.test_writer import GENERIC, Asker, Editor, writer


def _files(tmp_path: Path) -> list[TextChange]:
    out = []
    for name in ("a.py", "b.py", "c.py"):
        path = tmp_path / name
        path.write_text(f"greet  # {name}\n")
        out.append(TextChange(path, f"salute  # {name}\n", f"greet  # {name}\n"))
    return out


async def test_a_reviewing_editor_gets_one_edit_of_every_file(tmp_path: Path) -> None:
    editor = Editor()
    changes = _files(tmp_path)
    await writer(tmp_path, editor).write_texts(
        changes, tool_name="lsp", tool_call_id="c1", signal=NEVER
    )
    [params] = editor.edits
    uris = [c["textDocument"]["uri"] for c in params["edit"]["documentChanges"]]
    assert uris == [c.path.as_uri() for c in changes]
    assert params["label"].startswith("ink: lsp 3 files (a.py, b.py, c.py)")
    assert "ink" not in params  # not pre-approved: the editor's review is the decision
    assert [c.path.read_text() for c in changes] == [c.new_text for c in changes]


async def test_a_rejected_review_writes_nothing(tmp_path: Path) -> None:
    editor = Editor(lambda params: {"applied": False, "failureReason": "not now"})
    changes = _files(tmp_path)
    with pytest.raises(ChangeRejectedError, match="not now"):
        await writer(tmp_path, editor).write_texts(
            changes, tool_name="lsp", tool_call_id="c1", signal=NEVER
        )
    assert [c.path.read_text() for c in changes] == [c.old_text for c in changes]


async def test_a_generic_client_is_asked_once_naming_every_file(tmp_path: Path) -> None:
    asker = Asker("allow_once")
    editor = Editor()
    changes = _files(tmp_path)
    w = writer(tmp_path, editor, features=GENERIC, asker=asker)
    await w.write_texts(changes, tool_name="lsp", tool_call_id="c1", signal=NEVER)
    [question] = asker.questions
    assert question.title.endswith(", with b.py, c.py")
    assert [c.path.read_text() for c in changes] == [c.new_text for c in changes]


async def test_refused_once_nothing_is_written_and_readonly_refuses(tmp_path: Path) -> None:
    changes = _files(tmp_path)
    w = writer(tmp_path, Editor(), features=GENERIC, asker=Asker("reject"))
    with pytest.raises(ChangeRejectedError):
        await w.write_texts(changes, tool_name="lsp", tool_call_id="c1", signal=NEVER)
    assert [c.path.read_text() for c in changes] == [c.old_text for c in changes]
    ro = writer(tmp_path, Editor(), mode="readonly")
    with pytest.raises(ChangeRejectedError, match="readonly"):
        await ro.write_texts(changes, tool_name="lsp", tool_call_id="c2", signal=NEVER)


async def test_a_channel_without_batches_writes_file_by_file_after_one_answer(
    tmp_path: Path,
) -> None:
    asker = Asker("allow_once")
    gate = ApprovalGate("ask", asker, 5.0)  # type: ignore[arg-type]
    changes = _files(tmp_path)
    w = PolicyWriter(gate, DiskChannel(tmp_path), tmp_path)
    await w.write_texts(changes, tool_name="lsp", tool_call_id="c1", signal=NEVER)
    assert asker.questions == []  # the disk channel's own review answers (once)
    assert [c.path.read_text() for c in changes] == [c.new_text for c in changes]


def _saves_users_versions(changes: list[TextChange], users: dict[Path, str], named: bool) -> Any:
    """A reviewing editor whose user edited some proposals: it saves their versions (the
    proposal elsewhere) and answers edited, naming those files when `named`."""

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        for c in changes:
            c.path.write_text(users.get(c.path, c.new_text))
        ink: dict[str, Any] = {"edited": True}
        if named:
            ink["files"] = [p.as_uri() for p in users]
        return {"applied": True, "ink": ink}

    return answer


@pytest.mark.parametrize("named", [True, False])
async def test_the_users_versions_are_returned_by_file(tmp_path: Path, named: bool) -> None:
    changes = _files(tmp_path)
    users = {changes[0].path: "salute  # mine\n", changes[2].path: "salute()\n"}
    editor = Editor(_saves_users_versions(changes, users, named))
    landed = await writer(tmp_path, editor).write_texts(
        changes, tool_name="lsp", tool_call_id="c1", signal=NEVER
    )
    assert landed == users
    assert changes[1].path.read_text() == changes[1].new_text


async def test_a_file_not_named_as_edited_must_hold_the_proposal(tmp_path: Path) -> None:
    changes = _files(tmp_path)
    users = {changes[0].path: "salute  # mine\n"}
    answer = _saves_users_versions(changes, users, named=True)

    def meanwhile(params: dict[str, Any]) -> dict[str, Any]:
        result = answer(params)
        changes[1].path.write_text("someone else\n")
        return result

    with pytest.raises(ChangeRejectedError, match="changed while the approval was pending"):
        await writer(tmp_path, Editor(meanwhile)).write_texts(
            changes, tool_name="lsp", tool_call_id="c1", signal=NEVER
        )


async def test_an_edited_answer_from_a_client_that_does_not_review_is_not_taken(
    tmp_path: Path,
) -> None:
    changes = _files(tmp_path)
    docs = OpenDocuments()  # open: the approved edit goes to the editor as an applyEdit
    for c in changes:
        docs.did_open(c.path.as_uri(), c.old_text or "", 1)
    users = {changes[0].path: "salute  # mine\n"}
    editor = Editor(_saves_users_versions(changes, users, named=True))
    w = writer(tmp_path, editor, features=GENERIC, asker=Asker("allow_once"), docs=docs)
    with pytest.raises(ChangeRejectedError, match="changed while the approval was pending"):
        await w.write_texts(changes, tool_name="lsp", tool_call_id="c1", signal=NEVER)

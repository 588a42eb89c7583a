"""Approval mode `auto` keeps the editor's buffers in step, and progress shows pending approvals.

- An edit of a document open with unsaved changes reaches the editor as a `workspace/applyEdit`
  marked pre-approved (`"ink": {"approved": true}`), with no `window/showMessageRequest`; after
  the turn the disk holds the new text. A file not open is written to disk, nothing is sent.
- While an edit or a command waits for the user, the turn's progress reads
  `waiting for approval: <call>`, and the normal count comes back afterwards.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from tests.e2e.conftest import InkClient, Starter, answer, tool_results
from tests.fakes.model_server import FakeModelServer, text, tool

EDIT = {"path": "greet.txt", "edits": [{"oldText": "Hello", "newText": "Goodbye"}]}


def reports(client: InkClient) -> list[str]:
    ((_, values),) = client.progress_reports.items()
    out: list[str] = []
    for value in values:
        report: object = value  # pytest-lsp types the values loosely
        if isinstance(report, types.WorkDoneProgressReport):
            out.append(report.message or "")
    return out


async def test_auto_edit_of_an_unsaved_buffer_is_a_pre_approved_apply_edit(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tool("edit", EDIT), text("edited"))
    client = await start(approval="auto")
    path = client.workspace / "greet.txt"
    path.write_text("Hello, world\n", encoding="utf-8")
    client.open("greet.txt", "Hello, world\n")
    client.change("greet.txt", "Hello, world\nunsaved line\n")  # typed, not saved

    result = await client.prompt("say goodbye")
    assert result["stopReason"] == "end_turn"

    assert client.message_requests == []  # nobody was asked
    (request,) = client.edit_requests
    # the pre-approval mark goes to our plugins (experimental.ink) only: the neovim preset is a
    # plugin-less client here, and eglot 1.9 fails a request with an unknown key
    plugin = client.preset == "visual_studio_code"
    assert request.get("ink") == ({"approved": True} if plugin else None)
    assert request["label"] == "ink: edit greet.txt (call_1)"
    edit = request["edit"]
    if client.preset == "visual_studio_code":
        (change,) = edit["documentChanges"]
        assert change["textDocument"]["version"] == 2
        assert edit["changeAnnotations"]["ink-call_1"]["needsConfirmation"] is False
    else:
        assert list(edit["changes"]) == [client.open_uri("greet.txt")]
    # the edit was computed from the buffer: the unsaved line survives, in the buffer and on disk
    assert client.buffer("greet.txt") == "Goodbye, world\nunsaved line\n"
    assert path.read_text(encoding="utf-8") == "Goodbye, world\nunsaved line\n"
    (output,) = tool_results(model.wait_requests(2)[1])
    assert output == "Edited greet.txt: 1 edit applied."


async def test_auto_edit_of_a_file_not_open_goes_to_disk_only(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tool("edit", EDIT), text("edited"))
    client = await start(approval="auto")
    path = client.workspace / "greet.txt"
    path.write_text("Hello, world\n", encoding="utf-8")

    await client.prompt("say goodbye")

    assert client.edit_requests == [] and client.message_requests == []
    assert path.read_text(encoding="utf-8") == "Goodbye, world\n"


async def test_auto_edit_the_editor_refuses_is_blocked_with_its_reason(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tool("edit", EDIT), text("ok"))
    client = await start(approval="auto")
    path = client.workspace / "greet.txt"
    path.write_text("Hello, world\n", encoding="utf-8")
    client.open("greet.txt", "Hello, world\n")

    async def refuse(params: dict[str, Any]) -> dict[str, Any]:
        return {"applied": False, "failureReason": "the document is read-only"}

    client.on_apply_edit = refuse
    await client.prompt("say goodbye")

    (output,) = tool_results(model.wait_requests(2)[1])
    assert output == (
        'Tool "edit" blocked by editor: the editor did not apply the edit: '
        "the document is read-only"
    )
    assert path.read_text(encoding="utf-8") == "Hello, world\n"


async def test_progress_says_waiting_for_approval_while_an_edit_waits(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tool("edit", EDIT), text("edited"))
    client = await start(approval="ask")
    (client.workspace / "greet.txt").write_text("Hello, world\n", encoding="utf-8")
    seen: list[str] = []
    allow = answer("allow_once")

    async def on_prompt(params: dict[str, Any]) -> Any:
        seen.append(reports(client)[-1])
        return await allow(params)

    async def on_edit(params: dict[str, Any]) -> Any:
        seen.append(reports(client)[-1])
        return await client.accept_edit(params)

    client.on_message_request = on_prompt
    client.on_apply_edit = on_edit
    await client.prompt("say goodbye")

    # VS Code preset: the reviewed applyEdit is the wait; Neovim preset: the message request
    # is, and the applyEdit after the allow is not
    if client.preset == "visual_studio_code":
        assert seen == ["waiting for approval: edit greet.txt"]
    else:
        assert seen == ["waiting for approval: edit greet.txt", "edit greet.txt — 0 of 1 done"]
    assert reports(client) == [
        "edit greet.txt — 0 of 1 done",
        "waiting for approval: edit greet.txt",
        "edit greet.txt — 0 of 1 done",
        "edit greet.txt — 1 of 1 done",
    ]


async def test_progress_says_waiting_for_approval_while_a_command_waits(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tool("bash", {"command": "echo hi"}), text("ran"))
    client = await start(approval="ask")
    seen: list[str] = []
    allow = answer("allow_once")

    async def on_prompt(params: dict[str, Any]) -> Any:
        seen.append(reports(client)[-1])
        return await allow(params)

    client.on_message_request = on_prompt
    await client.prompt("run it")

    assert seen == ["waiting for approval: bash: echo hi"]
    assert reports(client) == [
        "waiting for approval: bash: echo hi",
        "bash: echo hi — 0 of 1 done",  # the wait is over
        "bash: echo hi — 0 of 1 done",  # running
        "bash: echo hi — 1 of 1 done",
    ]

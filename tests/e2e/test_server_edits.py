"""File changes through `workspace/applyEdit`: accepted and rejected (disk and buffer checked),
edits of a buffer with unsaved changes, and a buffer the user changed while approval was pending.

VS Code preset: the client reviews edits itself (`reviewsApplyEdit`) and saves what it accepts.
Neovim preset: a generic client; the server asks with a message first and writes the disk.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import InkClient, Starter, answer, tool_results
from tests.fakes.model_server import FakeModelServer, text, tool

EDIT = {"path": "hello.txt", "edits": [{"oldText": "world", "newText": "there"}]}


def reviews(client: InkClient) -> bool:
    return client.preset == "visual_studio_code"


async def test_edit_accepted_reaches_buffer_and_disk(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tool("edit", EDIT), tool("read", {"path": "hello.txt"}), text("edited"))
    client = await start()
    path = client.workspace / "hello.txt"
    path.write_text("hello world\n", encoding="utf-8")
    client.open("hello.txt", "hello world\n")
    client.on_message_request = answer("allow_once")

    result = await client.prompt("say there")
    assert result["stopReason"] == "end_turn"

    (request,) = client.edit_requests
    assert request["label"] == "ink: edit hello.txt (call_1)"
    edit = request["edit"]
    if reviews(client):
        assert client.message_requests == []
        (change,) = edit["documentChanges"]
        assert change["textDocument"]["version"] == 1
        assert change["edits"][0]["annotationId"] == "ink-call_1"
        assert edit["changeAnnotations"]["ink-call_1"]["needsConfirmation"] is True
    else:
        (asked,) = client.message_requests
        assert asked["message"] == ("Ink wants to edit hello.txt (call_1): 1 line removed, 1 added")
        assert list(edit["changes"]) == [client.open_uri("hello.txt")]
    assert path.read_text(encoding="utf-8") == "hello there\n"
    assert client.buffer("hello.txt") == "hello there\n"
    first, second = tool_results(model.wait_requests(3)[2])
    assert first == "Edited hello.txt: 1 edit applied."
    assert "hello there" in second  # the server's view of the buffer follows the edit
    diff = [u for u in client.tool_updates("call_1") if u.get("phase") == "delivered"][0]
    kinds = [c["type"] for c in diff["content"]]
    assert kinds == ["content", "diff"]
    assert diff["content"][1]["newText"] == "hello there\n"


async def test_edit_rejected_changes_nothing(start: Starter, model: FakeModelServer) -> None:
    model.push(tool("edit", EDIT), text("ok"))
    client = await start()
    path = client.workspace / "hello.txt"
    path.write_text("hello world\n", encoding="utf-8")
    client.open("hello.txt", "hello world\n")

    async def refuse(params: dict[str, Any]) -> dict[str, Any]:
        return {"applied": False, "failureReason": "the user rejected the edit"}

    client.on_apply_edit = refuse
    client.on_message_request = answer("reject_once")
    await client.prompt("say there")

    (output,) = tool_results(model.wait_requests(2)[1])
    if reviews(client):
        assert len(client.edit_requests) == 1
        assert output == 'Tool "edit" blocked by user: the user rejected the edit'
    else:
        assert client.edit_requests == []  # refused at the prompt: no edit sent
        assert output == 'Tool "edit" blocked by user: the user rejected this change'
    assert path.read_text(encoding="utf-8") == "hello world\n"
    assert client.buffer("hello.txt") == "hello world\n"


async def test_unsaved_buffer_is_read_and_edited(start: Starter, model: FakeModelServer) -> None:
    model.push(
        tool("read", {"path": "hello.txt"}),
        tool("edit", {"path": "hello.txt", "edits": [{"oldText": "unsaved", "newText": "saved"}]}),
        text("ok"),
    )
    client = await start()
    path = client.workspace / "hello.txt"
    path.write_text("hello world\n", encoding="utf-8")
    client.open("hello.txt", "hello world\n")
    client.change("hello.txt", "hello unsaved ✓ world\n")  # typed, not saved
    client.on_message_request = answer("allow_once")

    await client.prompt("fix it")
    read_result = tool_results(model.wait_requests(2)[1])[0]
    assert "hello unsaved ✓ world" in read_result
    edit_result = tool_results(model.wait_requests(3)[2])[-1]
    assert edit_result == "Edited hello.txt: 1 edit applied."
    assert path.read_text(encoding="utf-8") == "hello saved ✓ world\n"
    assert client.buffer("hello.txt") == "hello saved ✓ world\n"


async def test_buffer_changed_while_approval_pending_is_not_overwritten(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tool("edit", EDIT), text("ok"))
    client = await start()
    path = client.workspace / "hello.txt"
    path.write_text("hello world\n", encoding="utf-8")
    client.open("hello.txt", "hello world\n")

    async def user_types_then_allows(params: dict[str, Any]) -> Any:
        # the didChange reaches the server before this answer: one ordered stream
        client.change("hello.txt", "hello world, and more\n")
        return {"title": "Allow once", "optionId": "allow_once"}

    async def user_types_then_reviews(params: dict[str, Any]) -> dict[str, Any]:
        client.change("hello.txt", "hello world, and more\n")
        # a versioned edit no longer applies: VS Code refuses it
        return {"applied": False, "failureReason": "document version changed"}

    client.on_message_request = user_types_then_allows
    client.on_apply_edit = user_types_then_reviews
    await client.prompt("say there")
    (output,) = tool_results(model.wait_requests(2)[1])
    if reviews(client):
        assert output == 'Tool "edit" blocked by user: document version changed'
    else:
        assert client.edit_requests == []
        assert output == (
            'Tool "edit" blocked by user: the file changed while the approval was pending; '
            "read it again and redo the change"
        )
    assert client.buffer("hello.txt") == "hello world, and more\n"
    assert path.read_text(encoding="utf-8") == "hello world\n"

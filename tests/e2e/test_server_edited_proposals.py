"""An edited proposal: the user changes the proposed side of an edit's review before accepting.

The reviewing client (VS Code preset) applies and saves the user's version and answers
`{"applied": true, "ink": {"edited": true}}`; the file holds that version and the model's tool
result says the user modified the change, with the difference from its proposal.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import InkClient, Starter, tool_results
from tests.fakes.model_server import FakeModelServer, text, tool

EDIT = {"path": "hello.txt", "edits": [{"oldText": "world", "newText": "there"}]}
USERS = "hello there, friend\n"


def _user_edits(client: InkClient, *, save: bool) -> Any:
    async def handler(params: dict[str, Any]) -> dict[str, Any]:
        # the user typed into the proposed side: their version is what the client applies
        client.change("hello.txt", USERS)
        if save:
            (client.workspace / "hello.txt").write_text(USERS, encoding="utf-8")
        return {"applied": True, "ink": {"edited": True}}

    return handler


@pytest.mark.parametrize("saved", [True, False], ids=["client-saved", "buffer-only"])
async def test_edited_proposal_lands_and_the_model_is_told(
    start: Starter, model: FakeModelServer, saved: bool
) -> None:
    model.push(tool("edit", EDIT), text("ok"))
    client = await start(experimental={"ink": {"reviewsApplyEdit": True}})
    path = client.workspace / "hello.txt"
    path.write_text("hello world\n", encoding="utf-8")
    client.open("hello.txt", "hello world\n")
    client.on_apply_edit = _user_edits(client, save=saved)

    result = await client.prompt("say there")
    assert result["stopReason"] == "end_turn"
    assert path.read_text(encoding="utf-8") == USERS
    (output,) = tool_results(model.wait_requests(2)[1])
    assert output.startswith(
        "Edited hello.txt: 1 edit applied.\nThe user modified your proposed change before "
        "accepting it: hello.txt holds their version, not yours."
    )
    assert "-hello there\n+hello there, friend\n" in output
    delivered = [u for u in client.tool_updates("call_1") if u.get("phase") == "delivered"][0]
    assert delivered["content"][1]["newText"] == USERS  # the editor's diff shows what landed


async def test_edited_flag_from_a_client_that_does_not_review_is_ignored(
    start: Starter, model: FakeModelServer
) -> None:
    """Only a reviewing client's answer can say "edited": another client's extra member does
    not turn a change the user made meanwhile into an accepted version."""
    model.push(tool("edit", EDIT), text("ok"))
    client = await start(experimental={"ink": {"reviewsApplyEdit": False}})
    path = client.workspace / "hello.txt"
    path.write_text("hello world\n", encoding="utf-8")
    client.open("hello.txt", "hello world\n")

    async def allow(params: dict[str, Any]) -> Any:
        return next(a for a in params["actions"] if a.get("optionId") == "allow_once")

    client.on_message_request = allow
    client.on_apply_edit = _user_edits(client, save=False)
    await client.prompt("say there")
    (output,) = tool_results(model.wait_requests(2)[1])
    assert output == (
        'Tool "edit" blocked by user: the file changed while the approval was pending; '
        "read it again and redo the change"
    )

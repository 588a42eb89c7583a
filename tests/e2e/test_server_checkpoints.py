"""`ink/session/checkpoints` and `ink/session/rewind` through the real server: turn 1 writes
`a.py`, turn 2 edits it (open in the editor) while a command creates `b.txt`, deletes `c.txt`
and makes `run.sh` executable. Rewinding restores all four, the open buffer follows through
`workspace/applyEdit`, the next prompt continues from turn 1, rewinding to the rewind brings
turn 2 back, and a buffer with the user's unsaved edit is a conflict the user is asked about."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from ink_ls.protocol import methods
from ink_ls.protocol.errors import INVALID_PARAMS, InkErrorCode
from tests.e2e.conftest import InkClient, Starter
from tests.e2e.test_server_protocol import rpc_error
from tests.fakes.model_server import FakeModelServer, text, tool, tools

TURN1 = "create a.py"
TURN2 = "edit a.py and tidy the files"
A1 = "print('one')\n"
A2 = "print('two')\n"
REWIND = methods.SESSION_REWIND
COMMAND = "echo made > b.txt && rm c.txt && chmod +x run.sh"


def user_texts(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "user"]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def two_turns(client: InkClient, model: FakeModelServer) -> str:
    ws = client.workspace
    (ws / "c.txt").write_text("keep me\n")
    (ws / "run.sh").write_text("echo run\n")
    (ws / "run.sh").chmod(0o644)
    model.push(tool("write", {"path": "a.py", "content": A1}), text("wrote a.py"))
    first = await client.prompt(TURN1)
    session = str(first["sessionId"])
    assert first["turnId"] == "t1"
    client.open("a.py", A1)
    model.push(
        tools(
            ("edit", {"path": "a.py", "edits": [{"oldText": "one", "newText": "two"}]}),
            ("bash", {"command": COMMAND}),
        ),
        text("done"),
    )
    second = await client.prompt(TURN2, sessionId=session)
    assert second["turnId"] == "t2" and second["stopReason"] == "end_turn"
    assert (ws / "a.py").read_text() == A2 and client.buffer("a.py") == A2
    return session


async def test_rewind_restores_files_buffers_and_conversation(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start(approval="auto")
    ws = client.workspace
    session = await two_turns(client, model)

    listed = await client.ink(methods.SESSION_CHECKPOINTS, {"sessionId": session})
    entries = listed["checkpoints"]
    assert [(e["turn"], e["kind"], e["prompt"], e["rewound"]) for e in entries] == [
        (1, "turn", TURN1, False),
        (2, "turn", TURN2, False),
    ]
    assert [(f["path"], f["status"]) for f in entries[1]["files"]] == [
        ("a.py", "modified"),
        ("b.txt", "added"),
        ("c.txt", "deleted"),
        ("run.sh", "modified"),
    ]

    # the review: what turn 2 changed, texts before and after
    turn2 = await client.ink(methods.SESSION_CHANGES, {"sessionId": session, "turn": 2})
    assert turn2["files"] == [
        {"path": "a.py", "status": "modified", "before": A1, "after": A2},
        {"path": "b.txt", "status": "added", "after": "made\n"},
        {"path": "c.txt", "status": "deleted", "before": "keep me\n"},
        {"path": "run.sh", "status": "modified", "before": "echo run\n", "after": "echo run\n"},
    ]
    whole = await client.ink(methods.SESSION_CHANGES, {"sessionId": session})
    assert [(f["path"], f["status"]) for f in whole["files"]] == [
        ("a.py", "added"),
        ("b.txt", "added"),
        ("c.txt", "deleted"),
        ("run.sh", "modified"),
    ]

    edits_before = len(client.edit_requests)
    result = await client.ink(REWIND, {"sessionId": session, "turn": 2})
    assert result["checkpoint"]["turn"] == 3 and result["checkpoint"]["kind"] == "rewind"
    assert sorted(result["restored"]) == ["a.py", "b.txt", "c.txt", "run.sh"]
    assert (ws / "a.py").read_text() == A1
    assert not (ws / "b.txt").exists()
    assert (ws / "c.txt").read_text() == "keep me\n"
    assert mode(ws / "run.sh") == 0o644
    # the open buffer followed through applyEdit, before the disk was written
    rewind_edits = client.edit_requests[edits_before:]
    assert [r["label"] for r in rewind_edits] == ["ink: rewind a.py"]
    assert client.buffer("a.py") == A1

    model.push(text("continuing"))
    third = await client.prompt("what next?", sessionId=session)
    assert third["turnId"] == "t4"
    assert user_texts(model.requests[-1]) == [TURN1, "what next?"]

    back = await client.ink(REWIND, {"sessionId": session, "turn": 3})
    assert back["checkpoint"]["turn"] == 5
    assert (ws / "a.py").read_text() == A2 and client.buffer("a.py") == A2
    assert (ws / "b.txt").read_text() == "made\n"
    assert not (ws / "c.txt").exists()
    assert mode(ws / "run.sh") == 0o755
    model.push(text("back again"))
    await client.prompt("and now?", sessionId=session)
    assert user_texts(model.requests[-1]) == [TURN1, TURN2, "and now?"]

    final = await client.ink(methods.SESSION_CHECKPOINTS, {"sessionId": session})
    assert [(e["turn"], e["rewound"], e["noChanges"]) for e in final["checkpoints"]] == [
        (1, False, False),
        (2, False, False),
        (3, True, False),
        (4, True, True),
        (5, False, False),
        (6, False, True),
    ]


async def test_an_unsaved_user_edit_is_a_conflict_the_user_is_asked_about(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start(approval="auto")
    ws = client.workspace
    session = await two_turns(client, model)
    client.change("a.py", "print('mine, unsaved')\n")
    asked: list[str] = []

    async def keep_mine(params: dict[str, Any]) -> Any:
        asked.append(params["message"])
        return next(a for a in params["actions"] if a["title"] == "Keep mine")

    client.on_message_request = keep_mine
    result = await client.ink(REWIND, {"sessionId": session, "turn": 2})
    assert len(asked) == 1 and "a.py" in asked[0]
    assert result["kept"] == ["a.py"]
    assert client.buffer("a.py") == "print('mine, unsaved')\n"
    assert (ws / "a.py").read_text() == A2  # the user's file was not touched
    assert not (ws / "b.txt").exists() and (ws / "c.txt").exists()

    async def cancel(params: dict[str, Any]) -> Any:
        return next(a for a in params["actions"] if a["title"] == "Cancel")

    client.on_message_request = cancel
    error = await rpc_error(client.ink(REWIND, {"sessionId": session, "turn": 1}))
    assert error.code == InkErrorCode.REWIND_CANCELLED
    assert error.message == "rewind cancelled: nothing was changed"
    assert (ws / "a.py").read_text() == A2 and client.buffer("a.py") == "print('mine, unsaved')\n"


async def test_bad_rewind_params_and_unknown_turns(start: Starter, model: FakeModelServer) -> None:
    client = await start(approval="auto")
    session = await two_turns(client, model)
    for params in (
        {"sessionId": session, "turn": 0},
        {"sessionId": session, "turn": 1, "restore": "x"},
    ):
        error = await rpc_error(client.ink(REWIND, params))
        assert error.code == INVALID_PARAMS
    error = await rpc_error(client.ink(REWIND, {"sessionId": session, "turn": 9}))
    assert error.code == InkErrorCode.REWIND_FAILED
    assert error.message == "there is no entry 9: the session has entries 1 to 2"
    error = await rpc_error(client.ink(methods.SESSION_CHECKPOINTS, {"sessionId": "nope"}))
    assert error.code == InkErrorCode.SESSION_NOT_FOUND

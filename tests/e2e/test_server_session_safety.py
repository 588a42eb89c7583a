"""Session ids and damaged session files through the language server: an id that could name a
path is invalid params (-32602), not "not found"; a stored session with a damaged line loads
(the rest of it replayed) and continues."""

from __future__ import annotations

from pathlib import Path

from ink_ls.protocol import methods
from tests.e2e.conftest import Starter
from tests.e2e.test_server_protocol import rpc_error
from tests.fakes.model_server import FakeModelServer, text


async def test_ids_are_validated_at_every_session_method(start: Starter) -> None:
    client = await start(approval="auto")
    for method in (methods.SESSION_LOAD, methods.SESSION_CLOSE, methods.SESSION_COMPACT):
        error = await rpc_error(client.ink(method, {"sessionId": "../../etc/passwd"}))
        assert error.code == -32602, (method, error)
        assert 'invalid session id "../../etc/passwd"' in error.message


async def test_a_damaged_session_loads_and_continues(
    start: Starter, model: FakeModelServer, tmp_path: Path
) -> None:
    model.push(text("first answer"), text("second answer"))
    client = await start(approval="auto")
    first = await client.prompt("first question")
    session_id = first["sessionId"]
    path = tmp_path / "state" / "sessions" / f"{session_id}.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1][: len(lines[1]) // 2]  # the first question, cut in half
    path.write_bytes(b"\n".join(lines))

    again = await start(approval="auto")
    loaded = await again.ink(methods.SESSION_LOAD, {"sessionId": session_id})
    assert loaded["messageCount"] == 1
    done = await again.prompt("second question", sessionId=session_id)
    assert done["stopReason"] == "end_turn"
    sent = [m.get("content") for m in model.requests[1]["messages"] if m["role"] != "system"]
    assert sent == ["first answer", "second question"]

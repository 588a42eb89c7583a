"""A stored session's turn takes its checkpoint snapshot off the prompt's critical path: it
starts once the model request is out (not while it is being sent), and a turn's first change
still waits for it, so the checkpoint holds the workspace as it was before the change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ink_ls.agent.approval import ApprovalGate
from ink_ls.agent.factory import AgentFactory
from ink_ls.agent.turn import FrontEnd, MemoryConversation, PreparedTurn, TurnBuilder
from ink_ls.checkpoints.shadow import ShadowRepo, store_for
from ink_ls.core.config import ModelSettings
from ink_ls.sessions.store import SessionStore
from tests.fakes.model_server import FakeModelServer, Reply, text, tool


async def test_the_snapshot_starts_after_the_request_and_still_precedes_the_change(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("one\n")
    session = SessionStore(tmp_path / "state" / "sessions").create(cwd=ws)
    prepared: list[PreparedTurn] = []
    started_at_arrival: list[bool] = []

    def answer(payload: dict[str, Any]) -> Reply:
        checkpoint = prepared[0].checkpoint
        assert checkpoint is not None
        started_at_arrival.append(checkpoint.prefetching)
        if payload["messages"][-1]["role"] == "tool":
            return text("done")
        return tool("write", {"path": "a.txt", "content": "two\n"})

    factory = AgentFactory()
    with FakeModelServer() as server:
        server.default = answer
        settings = ModelSettings(base_url=server.base_url, model="m", context_window=8192)
        async with TurnBuilder(factory).turn(
            FrontEnd("terminal", ApprovalGate("auto")),
            MemoryConversation(),
            settings=settings,
            cwd=ws,
            prompt="change a.txt",
            checkpoints=session,
        ) as turn:
            prepared.append(turn)
            result = await turn.agent.run("change a.txt")
        await factory.close_models()
    assert result.stop_reason == "completed" and result.text == "done"
    # not started while the first request went out; running by the second one
    assert started_at_arrival == [False, True]
    assert (ws / "a.txt").read_text() == "two\n"
    entry = session.timeline.get(1)
    assert entry is not None and entry.before is not None and entry.after is not None
    assert [f.path for f in entry.files] == ["a.txt"]
    repo = ShadowRepo(ws, store_for(ws, session.state_dir), max_file_bytes=1 << 20)
    assert repo.run("show", f"{entry.before}:a.txt") == b"one\n"

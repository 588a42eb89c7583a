"""Progress while a call waits for the user's approval: the reporter's hook, the watched
prompter, and the writer's reviewed `applyEdit` (not the pre-approved one)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from ink_ls.agent.approval import ApprovalGate, ApprovalQuestion, Choice
from ink_ls.agent.events import ToolRunningEvent, ToolSettledEvent
from ink_ls.agent.writes import PolicyWriter
from ink_ls.core.signal import NEVER, CancelSignal
from ink_ls.editor.client import ClientFeatures
from ink_ls.editor.documents import OpenDocuments, path_to_uri
from ink_ls.editor.updates import TurnReporter
from ink_ls.editor.waiting import WatchedPrompter
from ink_ls.editor.writer import EditorChanges
from tests.fakes.events import started

CWD = Path("/ws")
REVIEWING = ClientFeatures(work_done_progress=True, document_changes=True, reviews_apply_edit=True)


class Client:
    """Records progress messages; answers applyEdit after recording what progress said."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.said_during_edit: list[str] = []

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.said_during_edit.append(self.messages[-1] if self.messages else "")
        return {"applied": True}

    def notify(self, method: str, params: dict[str, Any]) -> None:
        value = params.get("value", {})
        if "message" in value:
            self.messages.append(value["message"])


def reporter(client: Client) -> TurnReporter:
    r = TurnReporter(client, session_id="s1", turn_id="t1", cwd=CWD, progress_token="p")
    r.on_event(started(tool_call_id="c1", tool_name="edit", arguments={"path": "greet.txt"}))
    r.on_event(started(tool_call_id="c2", tool_name="bash", arguments={"command": "npm test"}))
    r.on_event(ToolRunningEvent(tool_call_id="c1", tool_name="edit"))
    return r


def test_waiting_replaces_the_count_until_every_wait_is_over() -> None:
    client = Client()
    r = reporter(client)
    r.waiting("c1")
    r.waiting("c2")
    r.resumed("c2")
    r.on_event(
        ToolSettledEvent(tool_call_id="c2", tool_name="bash", is_error=False, duration_ms=1.0)
    )
    r.resumed("c1")
    assert client.messages == [
        "edit greet.txt — 0 of 2 done",
        "waiting for approval: edit greet.txt",
        "waiting for approval: bash: npm test",
        "waiting for approval: edit greet.txt",  # c1 still waits
        "waiting for approval: edit greet.txt",  # a settle does not hide the wait
        "edit greet.txt — 1 of 2 done",
    ]


class Asker:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.seen = ""

    async def __call__(self, question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        self.seen = self.client.messages[-1]
        return "allow_once"


async def test_watched_prompter_reports_the_wait_and_the_end_of_it() -> None:
    client = Client()
    r = reporter(client)
    asker = Asker(client)
    question = ApprovalQuestion(
        tool_name="bash",
        tool_call_id="c2",
        kind="command",
        title="Run command: npm test",
        detail="{}",
    )
    assert await WatchedPrompter(asker, r)(question, NEVER) == "allow_once"
    assert asker.seen == "waiting for approval: bash: npm test"
    assert client.messages[-1] == "bash: npm test — 0 of 2 done"


async def test_watched_prompter_ends_the_wait_when_the_prompt_is_abandoned() -> None:
    client = Client()
    r = reporter(client)

    async def never(question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        await asyncio.Event().wait()
        return None

    question = ApprovalQuestion(
        tool_name="bash",
        tool_call_id="c2",
        kind="command",
        title="Run command: npm test",
        detail="{}",
    )
    task = asyncio.ensure_future(WatchedPrompter(never, r)(question, NEVER))
    await asyncio.sleep(0)
    assert client.messages[-1] == "waiting for approval: bash: npm test"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert client.messages[-1] == "bash: npm test — 0 of 2 done"


@pytest.mark.parametrize(
    ("mode", "during"),
    [
        ("ask", "waiting for approval: edit greet.txt"),
        ("auto", "edit greet.txt — 0 of 2 done"),  # pre-approved: nobody is waited for
    ],
)
async def test_writer_reports_a_reviewed_edit_as_waiting(
    tmp_path: Path, mode: str, during: str
) -> None:
    client = Client()
    r = reporter(client)
    path = tmp_path / "greet.txt"
    path.write_text("Hello\n")
    docs = OpenDocuments()
    docs.did_open(path_to_uri(path), "Hello\n", 1)

    async def no_prompt(question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        raise AssertionError("a reviewing client is not asked with a message")

    writer = PolicyWriter(
        ApprovalGate(mode, no_prompt, 5.0),  # type: ignore[arg-type]
        EditorChanges(client, REVIEWING, docs, tmp_path, no_prompt, 5.0, watch=r),
    )
    await writer.write_text(
        path, "Bye\n", old_text="Hello\n", tool_name="edit", tool_call_id="c1", signal=NEVER
    )
    assert client.said_during_edit == [during]
    assert client.messages[-1] == "edit greet.txt — 0 of 2 done"
    assert path.read_text() == "Bye\n"

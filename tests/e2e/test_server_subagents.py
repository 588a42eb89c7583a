"""What the editor sees of a `task` call's sub-agent: its calls as `tool_call` updates tagged
with `parentToolCallId` and namespaced ids, its approvals under the same ids, and none of its
text in the answer."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Starter, answer, tool_results
from tests.fakes.model_server import FakeModelServer, Reply, text, tool


def steps(client: Any, call_id: str) -> list[tuple[str, str]]:
    return [(u.get("phase", "registered"), u["status"]) for u in client.tool_updates(call_id)]


async def test_a_sub_agents_read_is_shown_under_its_task_and_its_text_stays_out(
    start: Starter, model: FakeModelServer
) -> None:
    # The sub-agent's read reuses the parent's id `call_1`: ids are model-generated.
    model.push(
        tool(
            "task",
            {"prompt": "Find how to start the project.", "description": "survey"},
            call_ids=["call_1"],
        ),
        Reply(
            text="SUB-AGENT THINKING ",
            tool_calls=[("read", {"path": "README.md"})],
            call_ids=["call_1"],
        ),
        text("SUB-AGENT ANSWER: npm start"),
        text("Run `npm start`."),
    )
    client = await start()
    result = await client.prompt("how do I start it? use a sub-agent")
    assert result["stopReason"] == "end_turn"

    calls = [u for u in client.tool_updates() if u["sessionUpdate"] == "tool_call"]
    assert [(u["toolCallId"], u["title"], u.get("parentToolCallId")) for u in calls] == [
        ("call_1", "task: survey", None),
        ("call_1/call_1", "read README.md", "call_1"),
    ]
    assert all(u["parentToolCallId"] == "call_1" for u in client.tool_updates("call_1/call_1"))
    assert all("parentToolCallId" not in u for u in client.tool_updates("call_1"))
    full = [
        ("registered", "pending"),
        ("running", "in_progress"),
        ("settled", "completed"),
        ("delivered", "completed"),
    ]
    assert steps(client, "call_1") == full
    assert steps(client, "call_1/call_1") == full
    # the sub-agent's call runs inside the task: after its `running`, before its `settled`
    order = [(u["toolCallId"], u.get("phase", "registered")) for u in client.tool_updates()]
    assert order.index(("call_1", "running")) < order.index(("call_1/call_1", "registered"))
    assert order.index(("call_1/call_1", "delivered")) < order.index(("call_1", "settled"))
    read = [u for u in client.tool_updates("call_1/call_1") if u.get("phase") == "delivered"]
    assert "npm start" in read[0]["rawOutput"]["text"]
    task = [u for u in client.tool_updates("call_1") if u.get("phase") == "delivered"]
    assert task[0]["rawOutput"]["text"] == "SUB-AGENT ANSWER: npm start"

    # the answer is the parent's text only
    chunks = "".join(
        u["update"]["content"]["text"]
        for u in client.updates
        if u["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert chunks == "Run `npm start`."
    assert result["text"] == "Run `npm start`."
    # the parent model saw only the task's result, under the parent's id
    assert tool_results(model.wait_requests(4)[3]) == ["SUB-AGENT ANSWER: npm start"]

    ((_, values),) = client.progress_reports.items()
    reports = [v.message for v in values[1:-1]]
    assert "task: survey › read README.md — 0 of 2 done" in reports


def used(inp: int, out: int) -> dict[str, int]:
    return {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out}


async def test_a_sub_agents_tokens_count_in_the_turns_usage_totals(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(
        tool(
            "task",
            {"prompt": "Say hi.", "description": "hi"},
            call_ids=["call_1"],
            usage=used(100, 10),
        ),
        text("SUB-AGENT ANSWER: hi", usage=used(40, 4)),
        text("It said hi.", usage=used(200, 20)),
    )
    client = await start()
    result = await client.prompt("delegate a greeting")
    assert result["stopReason"] == "end_turn"
    totals = [
        (u["update"]["inputTokens"], u["update"]["outputTokens"])
        for u in client.updates
        if u["update"]["sessionUpdate"] == "usage_update"
    ]
    assert totals == [(100, 10), (140, 14), (340, 34)]


async def test_a_sub_agents_edit_is_approved_under_its_namespaced_id(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(
        tool(
            "task",
            {"prompt": "Create greet.txt saying hi.", "description": "greet"},
            call_ids=["call_1"],
        ),
        tool("write", {"path": "greet.txt", "content": "hi\n"}, call_ids=["call_1"]),
        text("wrote it"),
        text("done"),
    )
    client = await start(approval="ask")
    client.on_message_request = answer("allow_once")
    result = await client.prompt("delegate writing greet.txt")
    assert result["stopReason"] == "end_turn"

    assert (client.workspace / "greet.txt").read_text(encoding="utf-8") == "hi\n"
    (request,) = client.edit_requests
    assert request["label"] == "ink: write greet.txt (call_1/call_1)"
    if client.preset == "neovim":  # no reviewsApplyEdit: asked first, under the same id
        (question,) = client.message_requests
        assert question["message"] == (
            "Ink wants to write greet.txt (call_1/call_1): new file, 1 lines"
        )
    else:
        assert client.message_requests == []
    writes = [u for u in client.tool_updates("call_1/call_1") if u["sessionUpdate"] == "tool_call"]
    assert [(u["title"], u["parentToolCallId"]) for u in writes] == [("write greet.txt", "call_1")]
    # progress names the waiting call after its task
    ((_, values),) = client.progress_reports.items()
    reports = [v.message for v in values[1:-1]]
    assert "waiting for approval: task: greet › write greet.txt" in reports

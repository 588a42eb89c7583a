"""Command approvals through `window/showMessageRequest`: allowed, rejected, dismissed, timed
out, and "Always allow" not asked twice."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.e2e.conftest import Starter, answer, tool_results
from tests.fakes.model_server import FakeModelServer, text, tool


async def test_command_allowed_runs_and_the_model_gets_its_output(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tool("bash", {"command": "echo approved-$((20+22))"}), text("ok"))
    client = await start()
    client.on_message_request = answer("allow_once")
    result = await client.prompt("run it")
    assert result["stopReason"] == "end_turn"
    (asked,) = client.message_requests
    assert asked["type"] == 2
    assert asked["message"] == "Ink wants to run a command:\necho approved-$((20+22))"
    assert asked["actions"] == [
        {"title": "Allow once", "optionId": "allow_once"},
        {"title": "Always allow", "optionId": "allow_always"},
        {"title": "Reject", "optionId": "reject_once"},
    ]
    (output,) = tool_results(model.wait_requests(2)[1])
    assert "approved-42" in output
    registered = client.tool_updates("call_1")[0]
    assert (registered["title"], registered["kind"]) == (
        "bash: echo approved-$((20+22))",
        "execute",
    )


async def test_command_rejected_is_blocked(start: Starter, model: FakeModelServer) -> None:
    model.push(tool("bash", {"command": "touch made-it"}), text("ok"))
    client = await start()
    client.on_message_request = answer("reject_once")
    await client.prompt("run it")
    (output,) = tool_results(model.wait_requests(2)[1])
    assert output == 'Tool "bash" blocked by user: the user rejected this call'
    assert not (client.workspace / "made-it").exists()


async def test_command_dismissed_is_blocked(start: Starter, model: FakeModelServer) -> None:
    model.push(tool("bash", {"command": "touch made-it"}), text("ok"))
    client = await start()
    client.on_message_request = answer(None)
    await client.prompt("run it")
    (output,) = tool_results(model.wait_requests(2)[1])
    assert output == 'Tool "bash" blocked by user: the approval prompt was dismissed'
    assert not (client.workspace / "made-it").exists()


async def test_command_approval_times_out(start: Starter, model: FakeModelServer) -> None:
    model.push(tool("bash", {"command": "touch made-it"}), text("ok"))
    client = await start(timeout=0.5)
    never = asyncio.Event()
    withdrawn = asyncio.Event()

    async def ignore(params: dict[str, Any]) -> Any:
        try:
            await never.wait()  # the user never answers
        except asyncio.CancelledError:
            withdrawn.set()  # the server sent $/cancelRequest for this prompt
            raise
        return None

    client.on_message_request = ignore
    try:
        result = await client.prompt("run it")
    finally:
        never.set()
    assert result["stopReason"] == "end_turn"
    (output,) = tool_results(model.wait_requests(2)[1])
    assert output == ('Tool "bash" blocked by user: no answer to the approval prompt within 0.5s')
    assert not (client.workspace / "made-it").exists()
    # the editor is told the prompt is stale, so it can close it
    await asyncio.wait_for(withdrawn.wait(), 5)


async def test_always_allow_is_not_asked_twice(start: Starter, model: FakeModelServer) -> None:
    model.push(
        tool("bash", {"command": "echo one"}),
        tool("bash", {"command": "echo two"}),
        text("first turn done"),
        tool("bash", {"command": "echo three"}),
        text("second turn done"),
    )
    client = await start()
    client.on_message_request = answer("allow_always")
    first = await client.prompt("run things")
    second = await client.prompt("more", sessionId=first["sessionId"])
    assert second["text"] == "second turn done"
    assert len(client.message_requests) == 1
    outputs = [tool_results(r)[-1] for r in model.requests[1:3]] + [
        tool_results(model.requests[4])[-1]
    ]
    assert ["one" in outputs[0], "two" in outputs[1], "three" in outputs[2]] == [True] * 3

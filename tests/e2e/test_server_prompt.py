"""The README prompt end to end: a read through the server, the answer, updates and progress."""

from __future__ import annotations

from tests.e2e.conftest import SECRET, Starter
from tests.fakes.model_server import FakeModelServer, text, tool


async def test_readme_prompt_reads_the_file_and_answers(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(tool("read", {"path": "README.md"}), text("Run `npm start`."))
    client = await start()
    result = await client.prompt("read README.md and tell me how to start the project")

    assert result["stopReason"] == "end_turn"
    assert result["text"] == "Run `npm start`."
    assert result["turnId"] == "t1"
    assert result["sessionId"].startswith("s-")
    # the model got the file's text as the tool result
    second = model.requests[1]["messages"]
    tool_msg = [m for m in second if m["role"] == "tool"][0]
    assert "Start the project with `npm start`." in tool_msg["content"]
    # the key went to the endpoint, and never to the client
    assert model.request_headers[0]["Authorization"] == f"Bearer {SECRET}"
    assert all(SECRET not in str(u) for u in client.updates)

    kinds = client.kinds()
    # the read is complete in the stream before the reply ends, so it is registered (and
    # starts) before the reply's usage; its result is delivered after the reply
    assert kinds[0] == "tool_call"
    assert sorted(kinds[1:5]) == ["tool_call_update"] * 3 + ["usage_update"]
    assert kinds[4] == "tool_call_update"
    assert kinds[5:] == [
        "agent_message_chunk",
        "agent_message_chunk",
        "agent_message_chunk",
        "agent_message_chunk",
        "usage_update",
        "turn_end",
    ]
    chunks = "".join(
        u["update"]["content"]["text"]
        for u in client.updates
        if u["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert chunks == "Run `npm start`."
    registered = client.tool_updates()[0]
    assert registered["title"] == "read README.md"
    assert registered["kind"] == "read"
    assert registered["rawInput"] == {"path": "README.md"}

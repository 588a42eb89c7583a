"""What goes over the wire: the pinned body of a two-turn conversation, images, tools."""

from __future__ import annotations

from ink_ls.core.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    TextBlock,
    ToolCall,
    ToolResultEntry,
    ToolResultMessage,
    UserMessage,
    user_text,
)
from ink_ls.model.base import ModelRequest
from tests.fakes.model_server import FakeModelServer, text
from tests.unit.model.conftest import MakeClient, collect

READ_SCHEMA = {
    "name": "read",
    "description": "Read a file.",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
    },
}
PNG = "iVBORw0KGgo="


def two_turns() -> list[Message]:
    return [
        user_text("read README.md"),
        AssistantMessage(
            text="Reading it.",
            tool_calls=[ToolCall(id="call_1", name="read", arguments='{"path": "README.md"}')],
            stop_reason="tool_use",
        ),
        ToolResultMessage(
            results=[
                ToolResultEntry(
                    tool_call_id="call_1",
                    tool_name="read",
                    content=[TextBlock(text="# Demo\nmake run")],
                )
            ]
        ),
        AssistantMessage(text="Run `make run`.", stop_reason="stop"),
        user_text("thanks; and the tests?"),
    ]


async def test_the_exact_body_of_a_two_turn_conversation_with_a_tool_result(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(text("ok"))
    request = ModelRequest(system="You are ink.", messages=two_turns(), tools=[READ_SCHEMA])
    await collect(make_client(max_tokens=1024), request)
    assert server.requests == [
        {
            "model": "fake-model",
            "messages": [
                {"role": "system", "content": "You are ink."},
                {"role": "user", "content": "read README.md"},
                {
                    "role": "assistant",
                    "content": "Reading it.",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "read", "arguments": '{"path": "README.md"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "# Demo\nmake run"},
                {"role": "assistant", "content": "Run `make run`."},
                {"role": "user", "content": "thanks; and the tests?"},
            ],
            "stream": True,
            "stream_options": {"include_usage": True},
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "read",
                        "description": "Read a file.",
                        "parameters": {
                            "type": "object",
                            "properties": {"path": {"type": "string"}},
                            "required": ["path"],
                            "additionalProperties": False,
                        },
                    },
                }
            ],
            "max_tokens": 1024,
        }
    ]


def image_history() -> list[Message]:
    return [
        UserMessage(
            content=[TextBlock(text="what is this?"), ImageBlock(data=PNG, mime_type="image/png")]
        ),
        AssistantMessage(
            tool_calls=[
                ToolCall(id="c1", name="read", arguments='{"path": "a.png"}'),
                ToolCall(id="c2", name="read", arguments='{"path": "b.txt"}'),
            ],
            stop_reason="tool_use",
        ),
        ToolResultMessage(
            results=[
                ToolResultEntry(
                    tool_call_id="c1",
                    tool_name="read",
                    content=[
                        TextBlock(text="Read image a.png [image/png]"),
                        ImageBlock(data=PNG, mime_type="image/png"),
                    ],
                ),
                ToolResultEntry(tool_call_id="c2", tool_name="read", content=[TextBlock(text="b")]),
            ]
        ),
    ]


async def test_images_for_a_vision_model_are_data_urls_and_follow_the_tool_messages(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(text("ok"))
    await collect(make_client(vision=True), ModelRequest(system="", messages=image_history()))
    url = {"url": f"data:image/png;base64,{PNG}"}
    assert server.requests[0]["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": url},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "a.png"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "b.txt"}'},
                },
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": (
                "Read image a.png [image/png]\n"
                "[image (image/png) attached in the next user message]"
            ),
        },
        {"role": "tool", "tool_call_id": "c2", "content": "b"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Images returned by tool calls:"},
                {"type": "text", "text": "read (c1):"},
                {"type": "image_url", "image_url": url},
            ],
        },
    ]


async def test_images_for_a_model_without_vision_become_placeholders(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(text("ok"))
    history = image_history()
    await collect(make_client(vision=False), ModelRequest(system="", messages=history))
    messages = server.requests[0]["messages"]
    assert messages[0] == {
        "role": "user",
        "content": "what is this?\n[image (image/png) omitted: this model cannot see images]",
    }
    assert messages[2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "Read image a.png [image/png]\n"
        "[image (image/png) omitted: this model cannot see images]",
    }
    assert len(messages) == 4  # no extra user message
    assert "image_url" not in str(server.requests[0])
    # the history itself keeps the image
    first = history[0]
    assert isinstance(first, UserMessage) and isinstance(first.content[1], ImageBlock)


async def test_empty_assistant_replies_are_left_out_and_no_tools_key_without_tools(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(text("ok"))
    history: list[Message] = [
        user_text("one"),
        AssistantMessage(stop_reason="aborted"),
        user_text("two"),
    ]
    await collect(make_client(), ModelRequest(system="s", messages=history))
    body = server.requests[0]
    assert body["messages"] == [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "one"},
        {"role": "user", "content": "two"},
    ]
    assert "tools" not in body and "max_tokens" not in body

"""Anthropic Messages over real loopback HTTP: the request (headers, thinking, cache
breakpoints), replayed streams (thinking with signatures, tool use, usage), the follow-up that
carries the thinking blocks first and unchanged, retries, in-stream errors, cut streams."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from ink_ls.core.messages import (
    AssistantMessage,
    TextBlock,
    ToolCall,
    ToolResultEntry,
    ToolResultMessage,
    Usage,
    user_text,
)
from ink_ls.core.signal import CancelController
from ink_ls.model.base import ModelError, ModelRequest, ReplyDone, ThinkingDelta, ToolCallReady
from ink_ls.model.errors import ModelContextLengthError, ModelHTTPError
from tests.fakes.model_server import FakeModelServer, Reply
from tests.fakes.providers import AnthropicTurn, anthropic_error, anthropic_stream, replay, sse
from tests.unit.model.conftest import MakeClient, SleepRecorder, collect

KEY = "sk-ant-api03-unit-4242"
TOOLS = [
    {
        "name": "read",
        "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]
REQ = ModelRequest(system="You are ink.", messages=[user_text("read README.md")], tools=TOOLS)
SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/=="
TURN = AnthropicTurn(
    thinking=[('The user wants README.md; I should call "read".\n', SIGNATURE)],
    redacted=["EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"],
    text="Let me read it.",
    tools=[("toolu_01A09q90qw90lq917835lq9", "read", {"path": "README.md"})],
    input_tokens=5,
    cache_read=1800,
    cache_write=200,
    output_tokens=96,
)


def anthropic(make_client: MakeClient, **kw: Any) -> Any:
    return make_client(provider="anthropic", api_key=KEY, **kw)


async def items_of(client: Any, request: ModelRequest, signal: Any = None) -> list[Any]:
    out = []
    async for item in client.stream(request, signal or CancelController().signal):
        out.append(item)
    return out


async def test_the_request_has_the_key_header_thinking_and_two_cache_breakpoints(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(replay(anthropic_stream(AnthropicTurn(text="Hi."))))
    await collect(anthropic(make_client, max_tokens=8192), REQ)
    assert server.paths == ["/v1/messages"]
    headers = {k.lower(): v for k, v in server.request_headers[0].items()}
    assert headers["x-api-key"] == KEY
    assert headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in headers
    body = server.requests[0]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert body["max_tokens"] == 8192 and body["stream"] is True
    assert body["system"] == [
        {"type": "text", "text": "You are ink.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "read README.md", "cache_control": {"type": "ephemeral"}}
            ],
        }
    ]
    assert body["tools"] == [
        {"name": "read", "description": "Read a file.", "input_schema": TOOLS[0]["parameters"]}
    ]
    assert server.bodies[0].count(b"cache_control") == 2


async def test_a_small_output_limit_leaves_thinking_off(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(replay(anthropic_stream(AnthropicTurn(text="Hi."))))
    await collect(anthropic(make_client, max_tokens=2000), REQ)
    assert "thinking" not in server.requests[0]


async def test_a_thinking_tool_use_stream_is_assembled_with_its_blocks_exact(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(replay(anthropic_stream(TURN)))
    items = await items_of(anthropic(make_client), REQ)
    thinking = "".join(i.text for i in items if isinstance(i, ThinkingDelta))
    assert thinking == TURN.thinking[0][0]
    ready = [i for i in items if isinstance(i, ToolCallReady)]
    done = items[-1]
    assert isinstance(done, ReplyDone)
    msg = done.message
    call = ToolCall(
        id="toolu_01A09q90qw90lq917835lq9", name="read", arguments='{"path": "README.md"}'
    )
    assert [r.call for r in ready] == [call]
    assert (msg.text, msg.tool_calls, msg.stop_reason) == ("Let me read it.", [call], "tool_use")
    assert msg.thinking == TURN.thinking[0][0]
    assert msg.extra == {
        "anthropic": {
            "thinking": [
                {"type": "thinking", "thinking": TURN.thinking[0][0], "signature": SIGNATURE},
                {"type": "redacted_thinking", "data": TURN.redacted[0]},
            ]
        }
    }
    # the whole prompt is input; what came from the cache is counted once, as cached
    assert msg.usage == Usage(input_tokens=2005, output_tokens=96, cache_read_tokens=1800)


async def test_the_follow_up_sends_the_thinking_blocks_first_and_unchanged(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(replay(anthropic_stream(TURN)), replay(anthropic_stream(AnthropicTurn(text="ok"))))
    client = anthropic(make_client)
    _, first = await collect(client, REQ)
    results = ToolResultMessage(
        results=[
            ToolResultEntry(
                tool_call_id="toolu_01A09q90qw90lq917835lq9",
                tool_name="read",
                content=[TextBlock(text="# Demo")],
            )
        ]
    )
    follow = ModelRequest(system=REQ.system, messages=[*REQ.messages, first, results], tools=TOOLS)
    await collect(client, follow)
    sent = server.requests[1]["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": TURN.thinking[0][0], "signature": SIGNATURE},
            {"type": "redacted_thinking", "data": TURN.redacted[0]},
            {"type": "text", "text": "Let me read it."},
            {
                "type": "tool_use",
                "id": "toolu_01A09q90qw90lq917835lq9",
                "name": "read",
                "input": {"path": "README.md"},
            },
        ],
    }
    assert sent[2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                "content": [{"type": "text", "text": "# Demo"}],
                "cache_control": {"type": "ephemeral"},
            }
        ],
    }
    # byte for byte: the signature and thinking text as JSON text in the raw request body
    assert json.dumps(SIGNATURE).encode() in server.bodies[1]
    assert server.bodies[1].count(b"cache_control") == 2


async def test_429_with_retry_after_is_retried(
    server: FakeModelServer, make_client: MakeClient, sleeps: SleepRecorder
) -> None:
    server.push(
        Reply(
            status=429,
            headers={"retry-after": "3"},
            body=anthropic_error("rate_limit_error", "Number of requests has exceeded your rate"),
        ),
        replay(anthropic_stream(AnthropicTurn(text="after the wait"))),
    )
    _, msg = await collect(anthropic(make_client), REQ)
    assert msg.text == "after the wait"
    assert sleeps.delays == [3.0]
    assert len(server.requests) == 2


async def test_an_error_event_mid_stream_fails_with_the_servers_message(
    server: FakeModelServer, make_client: MakeClient, sleeps: SleepRecorder
) -> None:
    raw = anthropic_stream(AnthropicTurn(text="Partial"))
    cut = raw[: raw.index(b"event: message_delta")]
    error = sse("error", json.loads(anthropic_error("overloaded_error", "Overloaded")))
    server.push(Reply(raw=cut + error))
    with pytest.raises(ModelError) as info:
        await collect(anthropic(make_client), REQ)
    assert "Overloaded" in str(info.value)
    assert len(server.requests) == 1 and sleeps.delays == []


async def test_a_stream_cut_before_the_stop_reason_is_a_cut_reply(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    raw = anthropic_stream(TURN)
    server.push(Reply(raw=raw[: raw.index(b"event: message_delta")]))
    with pytest.raises(ModelError) as info:
        await collect(anthropic(make_client), REQ)
    assert str(info.value).startswith("the reply was cut off")


async def test_a_stream_that_ends_after_the_stop_reason_is_whole(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    raw = anthropic_stream(AnthropicTurn(text="All there."))
    server.push(Reply(raw=raw[: raw.index(b"event: message_stop")]))
    _, msg = await collect(anthropic(make_client), REQ)
    assert (msg.text, msg.stop_reason) == ("All there.", "stop")


async def test_cancel_mid_stream_closes_the_connection(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    hold = threading.Event()
    server.push(
        replay(anthropic_stream(AnthropicTurn(text="Hello there", hold_after_text=True)), hold)
    )
    controller = CancelController()
    client = anthropic(make_client)
    seen: list[Any] = []
    async for item in client.stream(REQ, controller.signal):
        seen.append(item)
        if len(seen) == 1:
            controller.cancel("user")
    assert isinstance(seen[-1], ReplyDone)
    assert seen[-1].message == AssistantMessage(text="Hello t", stop_reason="aborted")

    def saw_disconnect() -> bool:
        with server._cond:
            return server._cond.wait_for(lambda: server.disconnects >= 1, timeout=10)

    assert await asyncio.to_thread(saw_disconnect)


async def test_a_prompt_too_long_is_a_context_length_error_the_loop_compacts_on(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    message = "prompt is too long: 215000 tokens > 200000 maximum"
    server.push(Reply(status=400, body=anthropic_error("invalid_request_error", message)))
    with pytest.raises(ModelContextLengthError) as info:
        await collect(anthropic(make_client), REQ)
    assert info.value.body_excerpt == message


async def test_a_refused_key_says_so_without_the_key(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(Reply(status=401, body=anthropic_error("authentication_error", f"bad {KEY}")))
    with pytest.raises(ModelHTTPError) as info:
        await collect(anthropic(make_client), REQ)
    assert str(info.value).startswith(
        f"the model endpoint at {server.base_url} answered HTTP 401: bad [redacted]; "
        "check the API key"
    )
    assert KEY not in str(info.value)


async def test_a_reply_cut_at_the_token_limit_hands_out_no_call(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    turn = AnthropicTurn(tools=[("toolu_cut", "read", {"path": "a"})], stop_reason="max_tokens")
    server.push(replay(anthropic_stream(turn)))
    items = await items_of(anthropic(make_client), REQ)
    assert not any(isinstance(i, ToolCallReady) for i in items)
    assert items[-1].message.stop_reason == "max_tokens"

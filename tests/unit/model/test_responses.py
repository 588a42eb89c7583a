"""OpenAI Responses over real loopback HTTP: the stateless request, replayed streams (reasoning
summaries, function calls, usage), the follow-up that carries each encrypted reasoning item as
`response.output_item.done` gave it right before its call, retries, failures, cut streams."""

from __future__ import annotations

import asyncio
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
from ink_ls.model.errors import ModelContextLengthError
from tests.fakes.model_server import FakeModelServer, Reply
from tests.fakes.providers import HOLD, ResponsesTurn, replay, responses_stream, sse
from tests.unit.model.conftest import MakeClient, SleepRecorder, collect

KEY = "sk-proj-unit-responses-77"
TOOLS = [
    {
        "name": "read",
        "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]
REQ = ModelRequest(system="You are ink.", messages=[user_text("read README.md")], tools=TOOLS)
ENCRYPTED = "gAAAAABor0AwEnc7JcC3Qn2kC4FhX0pYt9cOZ2Wq5b4xk-9d8Y3v_rsLpE1m=="
TURN = ResponsesTurn(
    reasoning=[("rs_68af40306c0c8193", "**Reading the README** to answer.", ENCRYPTED)],
    calls=[("fc_68af4031e7a88193", "call_VqsbrIWnD5RgRc3yAUi2bKNe", "read", {"path": "README.md"})],
    input_tokens=900,
    cached_tokens=768,
    output_tokens=120,
)


def responses(make_client: MakeClient, **kw: Any) -> Any:
    return make_client(provider="openai-responses", model="gpt-5-codex", api_key=KEY, **kw)


async def items_of(client: Any, request: ModelRequest) -> list[Any]:
    return [item async for item in client.stream(request, CancelController().signal)]


async def test_the_request_is_stateless_and_asks_for_encrypted_reasoning(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(replay(responses_stream(ResponsesTurn(text="Hi."))))
    await collect(responses(make_client, max_tokens=4000), REQ)
    assert server.paths == ["/v1/responses"]
    assert server.request_headers[0]["Authorization"] == f"Bearer {KEY}"
    body = server.requests[0]
    assert (body["store"], body["stream"]) == (False, True)
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["instructions"] == "You are ink."
    assert body["max_output_tokens"] == 4000
    assert body["reasoning"] == {"summary": "auto"}
    assert body["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "read README.md"}]}
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "name": "read",
            "description": "Read a file.",
            "parameters": TOOLS[0]["parameters"],
            "strict": False,
        }
    ]


async def test_a_reasoning_function_call_stream_keeps_the_done_items(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(replay(responses_stream(TURN)))
    items = await items_of(responses(make_client), REQ)
    assert "".join(i.text for i in items if isinstance(i, ThinkingDelta)) == TURN.reasoning[0][1]
    call = ToolCall(
        id="call_VqsbrIWnD5RgRc3yAUi2bKNe",
        name="read",
        arguments='{"path": "README.md"}',
        extra={"openai-responses": {"id": "fc_68af4031e7a88193"}},
    )
    assert [i.call for i in items if isinstance(i, ToolCallReady)] == [call]
    msg = items[-1].message
    assert (msg.tool_calls, msg.stop_reason) == ([call], "tool_use")
    assert msg.thinking == TURN.reasoning[0][1]
    reasoning = msg.extra["openai-responses"]["items"][0]
    # the …added form had no encrypted_content; the kept item is the …done one
    assert reasoning["encrypted_content"] == ENCRYPTED
    assert msg.usage == Usage(input_tokens=900, output_tokens=120, cache_read_tokens=768)


async def test_the_follow_up_carries_the_reasoning_item_right_before_its_call(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    answer = ResponsesTurn(text="Run `make start`.")
    server.push(replay(responses_stream(TURN)), replay(responses_stream(answer)))
    client = responses(make_client)
    _, first = await collect(client, REQ)
    results = ToolResultMessage(
        results=[
            ToolResultEntry(
                tool_call_id="call_VqsbrIWnD5RgRc3yAUi2bKNe",
                tool_name="read",
                content=[TextBlock(text="# Demo")],
            )
        ]
    )
    follow = ModelRequest(system=REQ.system, messages=[*REQ.messages, first, results], tools=TOOLS)
    _, final = await collect(client, follow)
    assert final.text == "Run `make start`."
    sent = server.requests[1]["input"]
    assert sent[1:] == [
        {
            "id": "rs_68af40306c0c8193",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": TURN.reasoning[0][1]}],
            "encrypted_content": ENCRYPTED,
        },
        {
            "id": "fc_68af4031e7a88193",
            "type": "function_call",
            "status": "completed",
            "arguments": '{"path": "README.md"}',
            "call_id": "call_VqsbrIWnD5RgRc3yAUi2bKNe",
            "name": "read",
        },
        {
            "type": "function_call_output",
            "call_id": "call_VqsbrIWnD5RgRc3yAUi2bKNe",
            "output": "# Demo",
        },
    ]


async def test_a_reply_from_another_provider_goes_back_as_plain_items(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(replay(responses_stream(ResponsesTurn(text="ok"))))
    other = AssistantMessage(
        text="Reading.",
        tool_calls=[ToolCall(id="c1", name="read", arguments="{}")],
        extra={"openai-chat": {"reasoning_content": "not for this API"}},
    )
    await collect(responses(make_client), ModelRequest(system="", messages=[other]))
    assert server.requests[0]["input"] == [
        {"role": "assistant", "content": "Reading."},
        {"type": "function_call", "call_id": "c1", "name": "read", "arguments": "{}"},
    ]


async def test_429_with_retry_after_is_retried(
    server: FakeModelServer, make_client: MakeClient, sleeps: SleepRecorder
) -> None:
    server.push(
        Reply(
            status=429,
            headers={"retry-after": "2"},
            body='{"error":{"message":"Rate limit reached for gpt-5-codex","type":"requests"}}',
        ),
        replay(responses_stream(ResponsesTurn(text="after the wait"))),
    )
    _, msg = await collect(responses(make_client), REQ)
    assert msg.text == "after the wait"
    assert sleeps.delays == [2.0]


async def test_a_failed_response_fails_with_the_servers_message(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    raw = responses_stream(ResponsesTurn(text="Partial"))
    cut = raw[: raw.index(b"event: response.completed")]
    failed = sse(
        "response.failed",
        {
            "type": "response.failed",
            "sequence_number": 99,
            "response": {"status": "failed", "error": {"code": "server_error", "message": "boom"}},
        },
    )
    server.push(Reply(raw=cut + failed))
    with pytest.raises(ModelError) as info:
        await collect(responses(make_client), REQ)
    assert str(info.value) == "the model endpoint reported an error: boom"


async def test_a_failure_for_length_before_any_output_is_a_context_length_error(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    raw = responses_stream(ResponsesTurn(text="unused"))
    start = raw[: raw.index(b"event: response.output_item.added")]
    error = {
        "code": "context_length_exceeded",
        "message": "Your input exceeds the context window of this model.",
    }
    failed = sse(
        "response.failed",
        {
            "type": "response.failed",
            "sequence_number": 2,
            "response": {"status": "failed", "error": error},
        },
    )
    server.push(Reply(raw=start + failed))
    with pytest.raises(ModelContextLengthError):
        await collect(responses(make_client), REQ)


async def test_incomplete_for_the_output_limit_is_max_tokens(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    turn = ResponsesTurn(text="The answer begins", status="incomplete")
    turn.incomplete_reason = "max_output_tokens"
    server.push(replay(responses_stream(turn)))
    _, msg = await collect(responses(make_client), REQ)
    assert (msg.text, msg.stop_reason) == ("The answer begins", "max_tokens")


async def test_a_stream_cut_before_completion_is_a_cut_reply(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    raw = responses_stream(TURN)
    server.push(Reply(raw=raw[: raw.index(b"event: response.completed")]))
    with pytest.raises(ModelError) as info:
        await collect(responses(make_client), REQ)
    assert str(info.value).startswith("the reply was cut off")


async def test_cancel_mid_stream_closes_the_connection(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    hold = threading.Event()
    raw = responses_stream(ResponsesTurn(text="Hello there", hold_after_text=True))
    assert HOLD in raw
    server.push(replay(raw, hold))
    controller = CancelController()
    seen: list[Any] = []
    async for item in responses(make_client).stream(REQ, controller.signal):
        seen.append(item)
        if len(seen) == 1:
            controller.cancel("user")
    assert isinstance(seen[-1], ReplyDone)
    assert seen[-1].message == AssistantMessage(text="Hello ", stop_reason="aborted")

    def saw_disconnect() -> bool:
        with server._cond:
            return server._cond.wait_for(lambda: server.disconnects >= 1, timeout=10)

    assert await asyncio.to_thread(saw_disconnect)

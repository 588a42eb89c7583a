"""Streaming replies over real loopback HTTP: text, tool calls, stop reasons, usage, cancel."""

from __future__ import annotations

import asyncio
import json

import httpx

from ink_ls.core.messages import ToolCall, Usage, user_text
from ink_ls.core.signal import CancelController
from ink_ls.model.base import ModelRequest, ReplyDone, TextDelta
from tests.fakes.model_server import FakeModelServer, Reply, text, tool, tools
from tests.unit.model.conftest import MakeClient, collect

REQ = ModelRequest(system="sys", messages=[user_text("hi")])


async def test_text_split_across_chunks_streams_in_order(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(
        text(
            "Hello, world! How are you?",
            chunk_size=3,
            usage={
                "prompt_tokens": 12,
                "completion_tokens": 7,
                "total_tokens": 19,
                "prompt_tokens_details": {"cached_tokens": 4},
            },
        )
    )
    deltas, msg = await collect(make_client(), REQ)
    assert deltas == ["Hel", "lo,", " wo", "rld", "! H", "ow ", "are", " yo", "u?"]
    assert msg.text == "Hello, world! How are you?"
    assert msg.stop_reason == "stop"
    assert msg.tool_calls == []
    assert msg.usage == Usage(input_tokens=12, output_tokens=7, cache_read_tokens=4)


async def test_tool_call_arguments_split_across_chunks_are_joined(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(
        Reply(
            text="Let me look.",
            tool_calls=[("read", {"path": "README.md"})],
            call_ids=["call_a"],
            chunk_size=2,
        )
    )
    deltas, msg = await collect(make_client(), REQ)
    assert "".join(deltas) == "Let me look."
    assert msg.tool_calls == [ToolCall(id="call_a", name="read", arguments='{"path": "README.md"}')]
    assert msg.stop_reason == "tool_use"


async def test_two_tool_calls_in_one_reply_keep_their_order(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(tools(("read", {"path": "a"}), ("grep", {"pattern": "x"}), call_ids=["c1", "c2"]))
    _, msg = await collect(make_client(), REQ)
    assert [(c.id, c.name, json.loads(c.arguments)) for c in msg.tool_calls] == [
        ("c1", "read", {"path": "a"}),
        ("c2", "grep", {"pattern": "x"}),
    ]


async def test_finish_reason_length_is_a_max_tokens_stop_and_keeps_the_calls(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(
        tool(
            "write", '{"path": "a.txt", "content": "trunc', finish_reason="length", call_ids=["c9"]
        )
    )
    _, msg = await collect(make_client(), REQ)
    assert msg.stop_reason == "max_tokens"
    # raw arguments pass through untouched; the loop refuses the batch, nothing crashes here
    assert msg.tool_calls == [
        ToolCall(id="c9", name="write", arguments='{"path": "a.txt", "content": "trunc')
    ]


async def test_unparseable_arguments_are_passed_through_raw(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(tool("read", "{not json at all", call_ids=["c1"]))
    _, msg = await collect(make_client(), REQ)
    assert msg.tool_calls[0].arguments == "{not json at all"
    assert msg.stop_reason == "tool_use"


async def test_a_server_that_answers_json_instead_of_sse_still_works(
    make_client: MakeClient,
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            json={
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "tool_calls",
                        "message": {
                            "role": "assistant",
                            "content": None,
                            "tool_calls": [
                                {
                                    "id": "x1",
                                    "type": "function",
                                    "function": {"name": "ls", "arguments": "{}"},
                                }
                            ],
                        },
                    }
                ],
                "usage": {"prompt_tokens": 3, "completion_tokens": 2},
            },
        )

    client = make_client(transport=httpx.MockTransport(handler))
    deltas, msg = await collect(client, REQ)
    assert deltas == []
    assert msg.tool_calls == [ToolCall(id="x1", name="ls", arguments="{}")]
    assert msg.usage == Usage(input_tokens=3, output_tokens=2)


class _FirstByteSpy(httpx.AsyncBaseTransport):
    """A real HTTP transport that flags when the first body bytes reached the client."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.first_bytes = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        spy = self

        class Stream(httpx.AsyncByteStream):
            async def __aiter__(self):  # type: ignore[no-untyped-def]
                async for chunk in response.stream:  # type: ignore[union-attr]
                    spy.first_bytes.set()
                    yield chunk

            async def aclose(self) -> None:
                await response.aclose()

        return httpx.Response(response.status_code, headers=response.headers, stream=Stream())

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_cancel_mid_stream_closes_the_connection_at_once(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(Reply(text="never sent", hang=True))
    spy = _FirstByteSpy()
    client = make_client(transport=spy)
    controller = CancelController()
    items: list[object] = []

    async def consume() -> None:
        async for item in client.stream(REQ, controller.signal):
            items.append(item)

    task = asyncio.create_task(consume())
    await asyncio.wait_for(spy.first_bytes.wait(), 5)
    controller.cancel("user")
    await asyncio.wait_for(task, 30)  # the model never answers: only the cancel ends it
    assert len(items) == 1 and isinstance(items[0], ReplyDone)
    assert items[0].message.stop_reason == "aborted"
    assert items[0].message.tool_calls == []

    def saw_disconnect() -> bool:
        with server._cond:
            return server._cond.wait_for(lambda: server.disconnects >= 1, timeout=5)

    assert await asyncio.to_thread(saw_disconnect)


async def test_cancel_keeps_the_text_received_so_far(make_client: MakeClient) -> None:
    controller = CancelController()

    async def body():  # type: ignore[no-untyped-def]
        yield b'data: {"choices":[{"index":0,"delta":{"content":"partial "}}]}\n\n'
        await asyncio.Event().wait()  # the model stalls

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    client = make_client(transport=httpx.MockTransport(handler))
    items = []
    async for item in client.stream(REQ, controller.signal):
        items.append(item)
        if isinstance(item, TextDelta):
            controller.cancel("user")
    assert [type(i).__name__ for i in items] == ["TextDelta", "ReplyDone"]
    final = items[-1]
    assert isinstance(final, ReplyDone)
    assert final.message.text == "partial "
    assert final.message.stop_reason == "aborted"


async def test_an_already_cancelled_signal_sends_no_request(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    controller = CancelController()
    controller.cancel("before")
    _, msg = await collect(make_client(), REQ, controller.signal)
    assert msg.stop_reason == "aborted"
    assert server.requests == []


async def test_cancelling_the_consuming_task_also_closes_the_connection(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    # the agent loop stops waiting by cancelling its consumer task: the stream must not leak
    server.push(Reply(text="never sent", hang=True))
    spy = _FirstByteSpy()
    client = make_client(transport=spy)

    async def consume() -> None:
        async for _ in client.stream(REQ, CancelController().signal):
            pass

    task = asyncio.create_task(consume())
    await asyncio.wait_for(spy.first_bytes.wait(), 5)
    task.cancel()
    await asyncio.wait({task}, timeout=5)
    assert task.cancelled()

    def saw_disconnect() -> bool:
        with server._cond:
            return server._cond.wait_for(lambda: server.disconnects >= 1, timeout=5)

    assert await asyncio.to_thread(saw_disconnect)

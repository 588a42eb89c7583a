"""Failures: retries before the first byte only, broken streams, clear errors, no key leaks."""

from __future__ import annotations

import logging
import socket

import httpx
import pytest

from ink_ls.core.messages import ToolCall, user_text
from ink_ls.model.base import ModelError, ModelRequest
from ink_ls.model.errors import (
    ModelContextLengthError,
    ModelHTTPError,
    ModelProtocolError,
    ModelStreamError,
    ModelTransportError,
)
from tests.fakes.model_server import FakeModelServer, Reply, text
from tests.unit.model.conftest import MakeClient, SleepRecorder, collect

REQ = ModelRequest(system="sys", messages=[user_text("hi")])
KEY = "sk-test-5ecret-9f8e7d6c5b4a"


def sse(*events: str) -> bytes:
    return "".join(f"data: {e}\n\n" for e in events).encode()


def chunk(delta: str) -> str:
    return '{"choices":[{"index":0,"delta":' + delta + ',"finish_reason":null}]}'


async def test_429_with_retry_after_then_503_then_success(
    server: FakeModelServer, make_client: MakeClient, sleeps: SleepRecorder
) -> None:
    server.push(
        Reply(status=429, headers={"Retry-After": "7"}, body='{"error":{"message":"slow down"}}'),
        Reply(status=503, body="overloaded"),
        text("ok"),
    )
    _, msg = await collect(make_client(), REQ)
    assert msg.text == "ok"
    assert len(server.requests) == 3
    # Retry-After is honoured as given; the next wait is the exponential backoff with jitter
    # (0.5 s * 2 for the second retry, times 0.75 for the pinned random number 0.5)
    assert sleeps.delays == [7.0, 0.75]


async def test_retries_stop_after_three_with_status_and_body_excerpt(
    server: FakeModelServer, make_client: MakeClient, sleeps: SleepRecorder
) -> None:
    server.push(*[Reply(status=503, body='{"error":{"message":"no capacity"}}')] * 4)
    with pytest.raises(ModelHTTPError) as info:
        await collect(make_client(), REQ)
    assert info.value.status == 503
    assert info.value.body_excerpt == "no capacity"
    assert str(info.value) == (
        f"the model endpoint at {server.base_url} answered HTTP 503: no capacity "
        "(gave up after 4 attempts)"
    )
    assert len(server.requests) == 4
    assert sleeps.delays == [0.375, 0.75, 1.5]


async def test_no_retry_after_the_first_streamed_byte(
    server: FakeModelServer, make_client: MakeClient, sleeps: SleepRecorder
) -> None:
    server.push(Reply(text="Hello there, this drops", drop_after=3), text("not requested"))
    with pytest.raises(ModelProtocolError) as info:
        await collect(make_client(), REQ)
    assert str(info.value) == (
        "the reply was cut off: the model endpoint closed the stream before the reply was "
        "complete (no finish_reason); the partial reply was discarded"
    )
    assert len(server.requests) == 1
    assert sleeps.delays == []


async def test_a_connection_reset_mid_stream_is_a_transport_error(
    make_client: MakeClient, sleeps: SleepRecorder
) -> None:
    calls = 0

    async def body():  # type: ignore[no-untyped-def]
        yield sse(chunk('{"content":"Hi"}'))
        raise httpx.ReadError("Connection reset by peer")

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    with pytest.raises(ModelTransportError) as info:
        await collect(make_client(transport=httpx.MockTransport(handler)), REQ)
    assert str(info.value) == (
        "the reply was cut off: the model endpoint closed the stream before the reply was "
        "complete (no finish_reason); the partial reply was discarded (Connection reset by peer)"
    )
    assert calls == 1 and sleeps.delays == []


async def test_garbage_in_the_stream_is_a_protocol_error(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(Reply(text="x", garbage="data: {not json"))
    with pytest.raises(ModelProtocolError) as info:
        await collect(make_client(), REQ)
    assert str(info.value) == "the model endpoint sent a stream item that is not JSON: {not json"
    assert len(server.requests) == 1


async def test_a_stream_without_done_is_complete_once_its_finish_reason_arrived(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(Reply(text="complete and whole", no_done=True))
    deltas, message = await collect(make_client(), REQ)
    assert message.text == "complete and whole" and message.stop_reason == "stop"
    assert message.usage.output_tokens == 5  # the usage chunk after the finish still counts


async def test_a_drop_after_the_finish_reason_keeps_the_reply(make_client: MakeClient) -> None:
    async def body():  # type: ignore[no-untyped-def]
        yield sse(chunk('{"content":"Done."}'))
        yield sse('{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}')
        raise httpx.RemoteProtocolError("peer closed connection without sending complete body")

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    _, message = await collect(make_client(transport=httpx.MockTransport(handler)), REQ)
    assert message.text == "Done."


async def test_an_error_object_inside_the_stream_is_reported(make_client: MakeClient) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            content=sse('{"error":{"message":"model crashed"}}'),
        )

    with pytest.raises(ModelStreamError) as info:
        await collect(make_client(transport=httpx.MockTransport(handler)), REQ)
    assert str(info.value) == "the model endpoint reported an error: model crashed"


@pytest.mark.parametrize(
    "raw",
    [
        # llama.cpp's server: an `error:` line (server_sent_event(sink, "error", …))
        b'error: {"code":500,"message":"model crashed","type":"server_error"}\n\n',
        # `event: error` with the error object as data
        b'event: error\ndata: {"type":"error","error":{"message":"model crashed"}}\n\n',
        # vLLM: the error object as a data chunk, then [DONE]
        b'data: {"error":{"object":"error","message":"model crashed","type":"Internal'
        b'ServerError","param":null,"code":500}}\n\ndata: [DONE]\n\n',
        # OpenRouter: the error on a chunk whose choice finishes with "error"
        b'data: {"id":"gen-1","object":"chat.completion.chunk","error":{"code":"server_error",'
        b'"message":"model crashed"},"choices":[{"index":0,"delta":{"content":""},'
        b'"finish_reason":"error"}]}\n\n',
    ],
    ids=["llama.cpp", "event-error", "vllm", "openrouter"],
)
async def test_every_in_stream_error_form_fails_the_reply(
    make_client: MakeClient, raw: bytes
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        body = sse(chunk('{"content":"Part"}')) + raw
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    with pytest.raises(ModelStreamError) as info:
        await collect(make_client(transport=httpx.MockTransport(handler)), REQ)
    assert str(info.value) == "the model endpoint reported an error: model crashed"


async def test_context_length_400_is_reported_as_such(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    body = (
        '{"error":{"message":"This model\'s maximum context length is 8192 tokens. However, '
        'your messages resulted in 9000 tokens.","code":"context_length_exceeded"}}'
    )
    server.push(Reply(status=400, body=body))
    with pytest.raises(ModelContextLengthError) as info:
        await collect(make_client(), REQ)
    assert info.value.status == 400
    assert str(info.value).startswith(
        "the conversation no longer fits the model's context window (HTTP 400: This model's "
        "maximum context length is 8192 tokens."
    )
    assert len(server.requests) == 1


async def test_404_names_the_base_url_and_model(
    server: FakeModelServer, make_client: MakeClient
) -> None:
    server.push(Reply(status=404, body='{"error":{"message":"model \\"nope\\" not found"}}'))
    with pytest.raises(ModelHTTPError) as info:
        await collect(make_client(model="nope"), REQ)
    assert str(info.value) == (
        f'the model endpoint at {server.base_url} answered HTTP 404: model "nope" not found; '
        'check the base URL (it usually ends in /v1) and the model name "nope"'
    )


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_unreachable_endpoint_is_one_clear_sentence(
    make_client: MakeClient, sleeps: SleepRecorder
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    with pytest.raises(ModelTransportError) as info:
        await collect(make_client(base_url=url), REQ)
    message = str(info.value)
    assert message.startswith(f"cannot reach the model endpoint at {url} (")
    assert message.endswith(
        "start a server there (e.g. `ollama serve`) or set INK_BASE_URL (or --base-url) to "
        "your OpenAI-compatible endpoint (gave up after 4 attempts)"
    )
    assert len(sleeps.delays) == 3  # connect errors are retried too


async def test_the_api_key_is_sent_but_never_logged_or_put_in_errors(
    server: FakeModelServer,
    make_client: MakeClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, httpx and httpcore included
    echo = f'{{"error":{{"message":"Incorrect API key provided: {KEY}."}}}}'
    server.push(
        Reply(status=503, body=echo),  # retried: logged as a warning
        text("fine"),
        Reply(status=401, body=echo),
        Reply(text="x", garbage=f"data: {{bad {KEY}"),
    )
    client = make_client(api_key=KEY)
    _, msg = await collect(client, REQ)
    assert msg.text == "fine"
    errors: list[ModelError] = []
    for _ in range(2):
        with pytest.raises(ModelError) as info:
            await collect(client, REQ)
        errors.append(info.value)
    unreachable = make_client(api_key=KEY, base_url=f"http://127.0.0.1:{_closed_port()}/v1")
    with pytest.raises(ModelTransportError) as info2:
        await collect(unreachable, REQ)
    errors.append(info2.value)

    assert server.request_headers[0]["Authorization"] == f"Bearer {KEY}"  # it was really used
    assert str(errors[0]).endswith(
        "Incorrect API key provided: [redacted].; check the API key "
        "(INK_API_KEY, or the variable named by --api-key-env)"
    )
    for err in errors:
        assert KEY not in str(err) and KEY not in repr(err.args)
    assert len(caplog.records) > 5
    for record in caplog.records:
        assert KEY not in record.getMessage()
        assert KEY not in repr(record.args)
    assert KEY not in repr(client.settings)


async def test_no_authorization_header_without_a_key(
    server: FakeModelServer, make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("INK_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.push(text("ok"))
    await collect(make_client(), REQ)
    assert "Authorization" not in server.request_headers[0]


async def test_interleaved_tool_call_deltas_are_joined_by_index(make_client: MakeClient) -> None:
    body = sse(
        chunk('{"role":"assistant","content":null}'),
        chunk(
            '{"tool_calls":[{"index":0,"id":"c_a","type":"function",'
            '"function":{"name":"read","arguments":""}}]}'
        ),
        chunk(
            '{"tool_calls":[{"index":1,"id":"c_b","type":"function",'
            '"function":{"name":"grep","arguments":"{\\"pat"}}]}'
        ),
        chunk('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"path\\": "}}]}'),
        chunk('{"tool_calls":[{"index":1,"function":{"arguments":"tern\\": \\"TODO\\"}"}}]}'),
        chunk('{"tool_calls":[{"index":0,"function":{"arguments":"\\"a.py\\"}"}}]}'),
        '{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
        '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":9}}',
        "[DONE]",
    )

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    _, msg = await collect(make_client(transport=httpx.MockTransport(handler)), REQ)
    assert msg.tool_calls == [
        ToolCall(id="c_a", name="read", arguments='{"path": "a.py"}'),
        ToolCall(id="c_b", name="grep", arguments='{"pattern": "TODO"}'),
    ]
    assert msg.stop_reason == "tool_use"
    assert msg.usage.output_tokens == 9


async def test_a_retry_after_longer_than_a_minute_is_reported_not_waited_for(
    server: FakeModelServer, make_client: MakeClient, sleeps: SleepRecorder
) -> None:
    server.push(
        Reply(
            status=429,
            headers={"Retry-After": "3600"},
            body='{"error":{"message":"quota exceeded"}}',
        )
    )
    with pytest.raises(ModelHTTPError) as info:
        await collect(make_client(), REQ)
    assert info.value.status == 429
    assert str(info.value).endswith(
        "answered HTTP 429: quota exceeded (the endpoint asked to retry after 3600 s, longer "
        "than ink-ls waits)"
    )
    assert len(server.requests) == 1 and sleeps.delays == []

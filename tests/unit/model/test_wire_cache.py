"""The conversation's wire cache: request bodies built from cached encoded pieces are byte for
byte the bodies built from scratch, for every dialect, turn after turn, and a replaced history
(compaction, rewind) is converted again."""

from __future__ import annotations

from typing import Any

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from ink_ls.core.config import ModelSettings
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
from ink_ls.model.anthropic import AnthropicDialect
from ink_ls.model.base import ModelRequest
from ink_ls.model.chat import ChatDialect
from ink_ls.model.dialect import Dialect
from ink_ls.model.ollama_dialect import OllamaDialect
from ink_ls.model.responses import ResponsesDialect
from ink_ls.model.wire import WireCache, dumps, encode_body

DIALECTS: list[Dialect] = [ChatDialect(), ResponsesDialect(), AnthropicDialect(), OllamaDialect()]
TOOLS = [{"name": "read", "description": "Read a file.", "parameters": {"type": "object"}}]

texts = st.text(max_size=12)
blocks = st.lists(
    st.one_of(
        st.builds(TextBlock, text=texts),
        st.builds(
            ImageBlock, data=st.sampled_from(["aGk=", "eA=="]), mime_type=st.just("image/png")
        ),
    ),
    max_size=3,
)
extras = st.sampled_from(
    [
        {},
        {"openai-chat": {"reasoning_content": "hm"}},
        {"anthropic": {"thinking": [{"type": "thinking", "thinking": "t", "signature": "s"}]}},
        {"openai-responses": {"items": [{"type": "reasoning", "id": "r1", "summary": []}]}},
        {"ollama": {"thinking": "é"}},
    ]
)
calls = st.lists(
    st.builds(
        ToolCall,
        id=st.sampled_from(["c1", "c2", "call_0"]),
        name=st.sampled_from(["read", "bash"]),
        arguments=st.sampled_from(['{"path": "a.py"}', "{}", "not json", "[1]", '{"n": "ü"}']),
        extra=st.sampled_from([{}, {"openai-chat": {"extra_content": {"x": 1}}}]),
    ),
    max_size=2,
)
messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(UserMessage, content=blocks),
    st.builds(AssistantMessage, text=texts, tool_calls=calls, extra=extras),
    st.builds(
        ToolResultMessage,
        results=st.lists(
            st.builds(
                ToolResultEntry,
                tool_call_id=st.sampled_from(["c1", "c2"]),
                tool_name=st.sampled_from(["read", "bash"]),
                content=blocks,
                is_error=st.booleans(),
            ),
            max_size=2,
        ),
    ),
)


def uncached(dialect: Dialect, history: list[Message], config: ModelSettings) -> bytes:
    return dumps(dialect.body(ModelRequest("You help.", list(history), TOOLS), config)).encode()


def cached(
    dialect: Dialect, history: list[Message], config: ModelSettings, wire: WireCache
) -> bytes:
    request = ModelRequest("You help.", list(history), TOOLS, wire=wire)
    return encode_body(dialect.body(request, config))


@settings(max_examples=150)
@given(
    history=st.lists(messages, max_size=8),
    vision=st.booleans(),
    cut=st.integers(min_value=0, max_value=8),
)
def test_cached_bodies_are_the_uncached_bytes_turn_after_turn(
    history: list[Message], vision: bool, cut: int
) -> None:
    config = ModelSettings(model="m", vision=vision)
    for dialect in DIALECTS:
        wire = WireCache()
        for end in range(len(history) + 1):  # every turn adds to the same history
            assert cached(dialect, history[:end], config, wire) == uncached(
                dialect, history[:end], config
            )
        # a compaction: a summary replaces the start, the tail stays (the same objects)
        compacted = [user_text("summary"), *history[min(cut, len(history)) :]]
        assert cached(dialect, compacted, config, wire) == uncached(dialect, compacted, config)


def test_a_turn_converts_only_what_it_added() -> None:
    config = ModelSettings(model="m")
    history: list[Message] = []
    wire = WireCache()
    for turn in range(20):
        history += [
            user_text(f"turn {turn}"),
            AssistantMessage(tool_calls=[ToolCall(id="c", name="read", arguments="{}")]),
            ToolResultMessage(
                results=[ToolResultEntry(tool_call_id="c", tool_name="read", content=[])]
            ),
        ]
        before = wire.converted
        cached(ChatDialect(), history, config, wire)
        assert wire.converted - before == 3


def test_invalidate_converts_the_whole_history_again() -> None:
    config = ModelSettings(model="m")
    history: list[Message] = [user_text("a"), AssistantMessage(text="b"), user_text("c")]
    wire = WireCache()
    cached(AnthropicDialect(), history, config, wire)
    wire.invalidate()
    before = wire.converted
    assert cached(AnthropicDialect(), history, config, wire) == uncached(
        AnthropicDialect(), history, config
    )
    assert wire.converted - before == 3


def test_a_message_replaced_in_place_is_converted_again() -> None:
    """A rewind that forgot to invalidate still sends the history as it is now."""
    config = ModelSettings(model="m")
    history: list[Message] = [user_text("a"), AssistantMessage(text="old"), user_text("c")]
    wire = WireCache()
    cached(ChatDialect(), history, config, wire)
    history[1] = AssistantMessage(text="new")
    body = cached(ChatDialect(), history, config, wire)
    assert b'"new"' in body and b'"old"' not in body
    assert body == uncached(ChatDialect(), history, config)


def test_the_encoding_is_what_httpx_sends_for_a_json_body() -> None:
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "ü ✓ \n"}]}
    request = httpx.Request("POST", "http://127.0.0.1/", json=body)
    assert encode_body(body) == request.read()

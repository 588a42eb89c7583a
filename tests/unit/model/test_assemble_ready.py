"""The assembler hands out each tool call as soon as the stream has moved past it, exactly as
the final message will carry it."""

from __future__ import annotations

from typing import Any

from ink_ls.core.messages import ToolCall
from ink_ls.model.assemble import StreamAssembler


def delta(
    index: int, *, id: str | None = None, name: str | None = None, args: str | None = None
) -> dict[str, Any]:
    call: dict[str, Any] = {"index": index}
    if id is not None:
        call["id"] = id
    fn: dict[str, Any] = {}
    if name is not None:
        fn["name"] = name
    if args is not None:
        fn["arguments"] = args
    call["function"] = fn
    return {"choices": [{"delta": {"tool_calls": [call]}}]}


def finish(reason: str) -> dict[str, Any]:
    return {"choices": [{"delta": {}, "finish_reason": reason}]}


def test_a_call_is_ready_when_the_next_begins_and_the_last_when_the_reply_finishes() -> None:
    a = StreamAssembler()
    a.feed(delta(0, id="c1", name="read", args='{"path": '))
    a.feed(delta(0, args='"a.py"}'))
    assert a.take_ready() == []  # still streaming: more may come
    a.feed(delta(1, id="c2", name="grep", args='{"pattern": "x"}'))
    first = ToolCall(id="c1", name="read", arguments='{"path": "a.py"}')
    assert a.take_ready() == [(0, first)]
    a.feed(finish("tool_calls"))
    second = ToolCall(id="c2", name="grep", arguments='{"pattern": "x"}')
    assert a.take_ready() == [(1, second)]
    message = a.finish()
    assert message.tool_calls == [first, second]
    assert message.stop_reason == "tool_use"


def test_a_reply_cut_by_the_token_limit_hands_out_only_the_calls_before_the_cut() -> None:
    a = StreamAssembler()
    a.feed(delta(0, id="c1", name="read", args='{"path": "a.py"}'))
    a.feed(delta(1, id="c2", name="read", args='{"path": "b'))
    a.feed(finish("length"))
    assert [i for i, _ in a.take_ready()] == [0]
    message = a.finish()
    assert message.stop_reason == "max_tokens"
    assert message.tool_calls[1].arguments == '{"path": "b'


def test_a_call_whose_arguments_are_not_yet_json_is_not_handed_out() -> None:
    a = StreamAssembler()
    a.feed(delta(0, id="c1", name="read", args=""))  # a server that interleaves calls
    a.feed(delta(1, id="c2", name="grep", args='{"pattern": "x"}'))
    a.feed(delta(0, args='{"path": "a.py"}'))
    a.feed(finish("tool_calls"))
    assert [i for i, _ in a.take_ready()] == [1]  # a gap at 0: known only from the end
    calls = a.finish().tool_calls
    assert calls[0] == ToolCall(id="c1", name="read", arguments='{"path": "a.py"}')


def test_a_handed_out_call_is_frozen_and_ids_stay_the_same() -> None:
    a = StreamAssembler()
    a.feed(delta(0, name="read", args='{"path": "a.py"}'))  # no id: one is made up
    a.feed(delta(1, id="c2", name="read", args='{"path": "b.py"}'))
    ((index, early),) = a.take_ready()
    a.feed(delta(0, args="garbage"))  # too late for call 0: dropped
    a.feed(finish("tool_calls"))
    calls = a.finish().tool_calls
    assert (index, calls[0]) == (0, early)
    assert early.id == "call_0_0" and early.arguments == '{"path": "a.py"}'

"""The ACP mapping alone: agent events and stored history → session updates, prompt content →
the user message."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import image_block, resource_block, resource_link_block, text_block
from acp.helpers import embedded_text_resource
from acp.schema import AudioContentBlock

from ink_ls.acp.updates import UpdateMapper, prompt_blocks, result_content
from ink_ls.agent.events import (
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolEndEvent,
    ToolRunningEvent,
    ToolStartEvent,
)
from ink_ls.core.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ToolCall,
    ToolResultEntry,
    ToolResultMessage,
    user_text,
)
from ink_ls.core.tool import CommandDisplay, DiffDisplay, ToolKind

CWD = Path("/ws")


def describe(name: str, args: object) -> tuple[str, ToolKind]:
    return f"{name} (from history)", "read"


def dump(updates: list[object]) -> list[dict[str, object]]:
    return [
        u.model_dump(mode="json", by_alias=True, exclude_none=True)  # type: ignore[attr-defined]
        for u in updates
    ]


def test_a_call_from_start_to_end() -> None:
    mapper = UpdateMapper(CWD, describe)
    start = mapper.updates(
        ToolStartEvent(
            tool_call_id="c1",
            tool_name="read",
            arguments={"path": "a.py", "offset": 10},
            title="read a.py",
            kind="read",
        )
    )
    (first,) = dump(start)
    assert (
        first["sessionUpdate"],
        first["toolCallId"],
        first["title"],
        first["kind"],
        first["status"],
    ) == ("tool_call", "c1", "read a.py", "read", "pending")
    assert first["locations"] == [{"path": "/ws/a.py", "line": 9}]
    assert first["rawInput"] == {"path": "a.py", "offset": 10}
    running = dump(mapper.updates(ToolRunningEvent(tool_call_id="c1", tool_name="read")))
    assert running[0]["status"] == "in_progress"
    end = dump(
        mapper.updates(
            ToolEndEvent(
                tool_call_id="c1", tool_name="read", content=[TextBlock(text="1\tx")], is_error=True
            )
        )
    )
    assert end[0]["status"] == "failed"
    assert end[0]["content"] == [{"type": "content", "content": {"type": "text", "text": "1\tx"}}]


def test_result_content_diff_and_command() -> None:
    diff = DiffDisplay(path=Path("/ws/a.py"), old_text="a\n", new_text="b\n", diff="-a\n+b")
    (d,) = dump(result_content([TextBlock(text="ok")], diff))  # type: ignore[arg-type]
    assert d == {"type": "diff", "path": "/ws/a.py", "oldText": "a\n", "newText": "b\n"}
    created = DiffDisplay(path=Path("/ws/n.py"), old_text="", new_text="x\n", diff="+x")
    assert "oldText" not in dump(result_content([], created))[0]  # type: ignore[arg-type]
    ran = CommandDisplay(command="ls", exit_code=0)
    (c,) = dump(result_content([TextBlock(text="a.py\n")], ran))  # type: ignore[arg-type]
    assert c["content"] == {"type": "text", "text": "```console\na.py\n```"}


def test_sub_agent_text_is_not_the_answer() -> None:
    mapper = UpdateMapper(CWD, describe)
    assert mapper.updates(TextDeltaEvent(text="x", parent_tool_call_id="t1")) == []
    assert dump(mapper.updates(TextDeltaEvent(text="y")))[0]["content"]["text"] == "y"


def test_a_todo_write_call_is_a_plan_update_and_nothing_else() -> None:
    mapper = UpdateMapper(CWD, describe)
    args = {"todos": [{"content": "step", "status": "in_progress"}]}
    (plan,) = dump(
        mapper.updates(ToolStartEvent(tool_call_id="p", tool_name="todo_write", arguments=args))
    )
    assert plan["sessionUpdate"] == "plan"
    assert plan["entries"] == [{"content": "step", "status": "in_progress", "priority": "medium"}]
    assert mapper.updates(ToolRunningEvent(tool_call_id="p", tool_name="todo_write")) == []


def test_replay_of_a_stored_conversation() -> None:
    history = [
        user_text("hi"),
        AssistantMessage(
            text="reading",
            tool_calls=[ToolCall(id="c1", name="read", arguments='{"path": "a.py"}')],
        ),
        ToolResultMessage(
            results=[
                ToolResultEntry(tool_call_id="c1", tool_name="read", content=[TextBlock(text="x")])
            ]
        ),
        AssistantMessage(text="done"),
    ]
    kinds = [
        (u["sessionUpdate"], u.get("title"), u.get("status"))
        for u in dump(UpdateMapper(CWD, describe).replay(history))
    ]
    assert kinds == [
        ("user_message_chunk", None, None),
        ("agent_message_chunk", None, None),
        ("tool_call", "read (from history)", "pending"),
        ("tool_call_update", None, "completed"),
        ("agent_message_chunk", None, None),
    ]


def test_prompt_content() -> None:
    blocks = prompt_blocks(
        [
            text_block("look"),
            image_block("AAAA", "image/png"),
            resource_block(embedded_text_resource("file:///ws/a.py", "x = 1")),
            resource_link_block("b.py", "file:///ws/b.py"),
        ]
    )
    assert blocks[0] == TextBlock(text="look")
    assert blocks[1] == ImageBlock(data="AAAA", mime_type="image/png")
    assert blocks[2] == TextBlock(text="Context from file:///ws/a.py:\n```\nx = 1\n```")
    assert blocks[3] == TextBlock(text="[referenced: file:///ws/b.py]")
    with pytest.raises(ValueError, match="'audio' is not supported"):
        prompt_blocks([AudioContentBlock(type="audio", data="AA", mime_type="audio/wav")])


def test_reasoning_is_a_thought_live_and_when_a_session_is_loaded() -> None:
    mapper = UpdateMapper(CWD, describe)
    assert dump(mapper.updates(ThinkingDeltaEvent(text="Read it first."))) == [
        {
            "sessionUpdate": "agent_thought_chunk",
            "content": {"type": "text", "text": "Read it first."},
        }
    ]
    assert mapper.updates(ThinkingDeltaEvent(text="child", parent_tool_call_id="t1")) == []
    replayed = dump(
        mapper.replay([user_text("q"), AssistantMessage(text="A.", thinking="Read it first.")])
    )
    assert [u["sessionUpdate"] for u in replayed] == [
        "user_message_chunk",
        "agent_thought_chunk",
        "agent_message_chunk",
    ]

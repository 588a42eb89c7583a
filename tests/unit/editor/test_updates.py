"""AgentEvents → `ink/session/update` payloads (ACP vocabulary) and progress report texts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ink_ls.agent.events import (
    MessageEndEvent,
    RunEndEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolEndEvent,
    ToolProgressEvent,
    ToolRunningEvent,
    ToolSettledEvent,
    UsageEvent,
    WarningEvent,
)
from ink_ls.core.messages import AssistantMessage, ImageBlock, TextBlock, Usage
from ink_ls.core.tool import DiffDisplay
from ink_ls.editor.updates import TurnReporter
from ink_ls.protocol import methods
from tests.fakes.events import started

CWD = Path("/ws")


class Client:
    def __init__(self) -> None:
        self.notes: list[tuple[str, dict[str, Any]]] = []

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        raise AssertionError("no requests expected")

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.notes.append((method, params))


def reporter() -> tuple[TurnReporter, Client]:
    client = Client()
    return TurnReporter(client, session_id="s1", turn_id="t3", cwd=CWD, progress_token="p"), client


def test_a_call_becomes_four_updates_and_progress_reports() -> None:
    r, client = reporter()
    r.on_event(started(tool_call_id="c1", tool_name="read", arguments={"path": "README.md"}))
    r.on_event(started(tool_call_id="c2", tool_name="bash", arguments=None))
    r.on_event(ToolRunningEvent(tool_call_id="c1", tool_name="read"))
    r.on_event(
        ToolSettledEvent(tool_call_id="c1", tool_name="read", is_error=False, duration_ms=1.23456)
    )
    r.on_event(
        ToolEndEvent(
            tool_call_id="c1",
            tool_name="read",
            is_error=False,
            content=[TextBlock(text="# Demo"), ImageBlock(data="AAAA", mime_type="image/png")],
        )
    )
    updates = [p for m, p in client.notes if m == methods.SESSION_UPDATE]
    assert all((u["sessionId"], u["turnId"]) == ("s1", "t3") for u in updates)
    assert [u["update"] for u in updates] == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c1",
            "title": "read README.md",
            "kind": "read",
            "status": "pending",
            "rawInput": {"path": "README.md"},
        },
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "c2",
            "title": "bash",
            "kind": "execute",
            "status": "pending",
            "rawInput": {},
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "in_progress",
            "phase": "running",
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "completed",
            "phase": "settled",
            "durationMs": 1.235,
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "completed",
            "phase": "delivered",
            "content": [
                {"type": "content", "content": {"type": "text", "text": "# Demo"}},
                {
                    "type": "content",
                    "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                },
            ],
            "rawOutput": {"isError": False, "text": "# Demo"},
        },
    ]
    progress = [p["value"]["message"] for m, p in client.notes if m == methods.PROGRESS]
    assert progress == ["read README.md — 0 of 2 done", "read README.md — 1 of 2 done"]


def test_edit_results_carry_a_diff_and_failures_are_failed() -> None:
    r, client = reporter()
    display = DiffDisplay(Path("/ws/a.py"), "a", "b", "-a\n+b")
    r.on_event(
        ToolEndEvent(
            tool_call_id="c1",
            tool_name="edit",
            is_error=False,
            content=[TextBlock(text="Edited a.py: 1 edit applied.")],
            display=display,
        )
    )
    r.on_event(
        ToolEndEvent(
            tool_call_id="c2",
            tool_name="bash",
            is_error=True,
            content=[TextBlock(text="Error: command aborted by user")],
        )
    )
    first, second = (p["update"] for _, p in client.notes)
    assert first["content"][1] == {
        "type": "diff",
        "path": "/ws/a.py",
        "oldText": "a",
        "newText": "b",
    }
    assert (second["status"], second["rawOutput"]["isError"]) == ("failed", True)


def test_text_usage_and_end() -> None:
    r, client = reporter()
    r.begin("first line of the prompt\nsecond")
    r.on_event(TextDeltaEvent(text="Hel"))
    r.on_event(TextDeltaEvent(text=""))
    usage = Usage(input_tokens=10, output_tokens=2)
    r.on_event(
        MessageEndEvent(message=AssistantMessage(text="Hel", usage=usage, stop_reason="max_tokens"))
    )
    r.on_event(
        MessageEndEvent(
            message=AssistantMessage(text="lo", usage=usage), context_tokens=12, context_window=1000
        )
    )
    r.on_event(RunEndEvent(stop_reason="completed", usage=usage))
    r.end("max_turn_requests", None)
    assert client.notes[0] == (
        methods.PROGRESS,
        {
            "token": "p",
            "value": {
                "kind": "begin",
                "title": "Ink",
                "cancellable": True,
                "message": "first line of the prompt",
            },
        },
    )
    bodies = [p["update"] for m, p in client.notes if m == methods.SESSION_UPDATE]
    assert bodies == [
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hel"}},
        {
            "sessionUpdate": "usage_update",
            "inputTokens": 10,
            "outputTokens": 2,
            "cacheReadTokens": 0,
            "sessionInputTokens": 10,
            "sessionOutputTokens": 2,
            "sessionCacheReadTokens": 0,
        },
        {
            "sessionUpdate": "usage_update",
            "inputTokens": 20,
            "outputTokens": 4,
            "cacheReadTokens": 0,
            "contextTokens": 12,
            "contextWindow": 1000,
            "sessionInputTokens": 20,
            "sessionOutputTokens": 4,
            "sessionCacheReadTokens": 0,
        },
        {"sessionUpdate": "turn_end", "stopReason": "max_turn_requests"},
    ]
    assert client.notes[-1][1]["value"] == {"kind": "end", "message": "stopped: turn limit"}


def test_a_sub_agents_tokens_count_in_the_turns_totals() -> None:
    r, client = reporter()
    r.on_event(
        MessageEndEvent(
            message=AssistantMessage(
                text="", usage=Usage(input_tokens=10, output_tokens=2), stop_reason="tool_use"
            )
        )
    )
    r.on_event(
        UsageEvent(usage=Usage(input_tokens=7, output_tokens=3), parent_tool_call_id="call_1")
    )
    r.on_event(
        MessageEndEvent(
            message=AssistantMessage(text="done", usage=Usage(input_tokens=30, output_tokens=4))
        )
    )
    usage = [
        (p["update"]["inputTokens"], p["update"]["outputTokens"], p["update"]["sessionInputTokens"])
        for m, p in client.notes
        if m == "ink/session/update"
    ]
    assert usage == [(10, 2, 10), (17, 5, 17), (47, 9, 47)]


def test_sub_agent_calls_carry_their_task_and_the_sub_agents_text_is_not_sent() -> None:
    r, client = reporter()
    r.on_event(
        started(
            tool_call_id="call_1",
            tool_name="task",
            arguments={"prompt": "look", "description": "survey"},
        )
    )
    r.on_event(ToolRunningEvent(tool_call_id="call_1", tool_name="task"))
    r.on_event(TextDeltaEvent(text="let me look", parent_tool_call_id="call_1"))
    sub = "call_1/call_1"
    r.on_event(
        started(
            tool_call_id=sub,
            tool_name="read",
            arguments={"path": "a.py"},
            parent_tool_call_id="call_1",
        )
    )
    r.on_event(ToolRunningEvent(tool_call_id=sub, tool_name="read", parent_tool_call_id="call_1"))
    r.on_event(
        ToolSettledEvent(
            tool_call_id=sub,
            tool_name="read",
            is_error=False,
            duration_ms=2.0,
            parent_tool_call_id="call_1",
        )
    )
    r.on_event(
        ToolEndEvent(
            tool_call_id=sub,
            tool_name="read",
            is_error=False,
            content=[TextBlock(text="x = 1")],
            parent_tool_call_id="call_1",
        )
    )
    r.on_event(TextDeltaEvent(text="answer"))
    updates = [p["update"] for m, p in client.notes if m == methods.SESSION_UPDATE]
    assert updates[2:] == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": sub,
            "title": "read a.py",
            "kind": "read",
            "status": "pending",
            "rawInput": {"path": "a.py"},
            "parentToolCallId": "call_1",
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": sub,
            "status": "in_progress",
            "phase": "running",
            "parentToolCallId": "call_1",
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": sub,
            "status": "completed",
            "phase": "settled",
            "durationMs": 2.0,
            "parentToolCallId": "call_1",
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": sub,
            "status": "completed",
            "phase": "delivered",
            "content": [{"type": "content", "content": {"type": "text", "text": "x = 1"}}],
            "rawOutput": {"isError": False, "text": "x = 1"},
            "parentToolCallId": "call_1",
        },
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "answer"}},
    ]
    assert "parentToolCallId" not in updates[0] and "parentToolCallId" not in updates[1]
    progress = [p["value"]["message"] for m, p in client.notes if m == methods.PROGRESS]
    assert progress == [
        "task: survey — 0 of 1 done",
        "task: survey › read a.py — 0 of 2 done",
        "task: survey › read a.py — 1 of 2 done",
    ]


def test_a_servers_progress_is_a_progress_report_unless_an_approval_waits() -> None:
    r, client = reporter()
    name = "mcp__ev__long"
    r.on_event(started(tool_call_id="c1", tool_name=name, arguments={}))
    r.on_event(ToolRunningEvent(tool_call_id="c1", tool_name=name))
    r.on_event(ToolProgressEvent(tool_call_id="c1", tool_name=name, message="3/10 indexing"))
    r.waiting("c1")
    r.on_event(ToolProgressEvent(tool_call_id="c1", tool_name=name, message="4/10 indexing"))
    progress = [p["value"]["message"] for m, p in client.notes if m == "$/progress"]
    assert progress == [
        f"{name} — 0 of 1 done",
        f"{name}: 3/10 indexing",
        f"waiting for approval: {name}",
    ]


def test_reasoning_warnings_and_where_the_window_came_from() -> None:
    r, client = reporter()
    r.begin("notes?")
    r.on_event(ThinkingDeltaEvent(text="Read them "))
    r.on_event(ThinkingDeltaEvent(text="a sub-agent's", parent_tool_call_id="task_1"))
    r.on_event(WarningEvent(message="the prompt is larger than the window"))
    r.on_event(
        MessageEndEvent(
            message=AssistantMessage(text="ok", usage=Usage(input_tokens=3000, output_tokens=9)),
            context_tokens=3009,
            context_window=4096,
            context_window_source="Ollama runtime",
        )
    )
    bodies = [p["update"] for m, p in client.notes if m == methods.SESSION_UPDATE]
    assert bodies[:2] == [
        {"sessionUpdate": "thinking", "content": {"type": "text", "text": "Read them "}},
        {"sessionUpdate": "warning", "message": "the prompt is larger than the window"},
    ]
    assert bodies[2]["contextWindow"] == 4096
    assert bodies[2]["contextWindowSource"] == "Ollama runtime"

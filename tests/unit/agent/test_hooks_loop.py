"""The agent's hook-ins with real hook commands: PreCompact before a compaction, a PreToolUse
`ask` that makes even `auto` ask, PostToolUse context, and each run reported as an event."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from agent_fakes import Board, Recorder, ScriptedModel, call, reply, tool_class

from ink_ls.agent.approval import ApprovalGate, ApprovalQuestion, Choice
from ink_ls.agent.budget import ConcurrencyBudget
from ink_ls.agent.events import HookRunEvent
from ink_ls.agent.loop import Agent, AgentOptions
from ink_ls.core.messages import AssistantMessage, UserMessage, user_text
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import ToolRegistry
from ink_ls.hooks.engine import Hooks


@dataclass(frozen=True)
class Entry:
    event: str
    matcher: str
    command: str
    timeout: float | None = None


def hooks(tmp_path: Path, *entries: Entry) -> Hooks:
    return Hooks(entries, cwd=tmp_path, session_id="s-9")


async def test_pre_compact_runs_before_a_compaction_with_its_trigger(tmp_path: Path) -> None:
    rec = Recorder()
    history = [user_text("x" * 4000), AssistantMessage(text="y" * 4000)] * 3
    model = ScriptedModel([reply("the summary")])
    agent = Agent(
        model,
        ToolRegistry([]),
        AgentOptions(cwd=tmp_path, context_window=4096),
        history=history,
        on_event=rec,
        hooks=hooks(tmp_path, Entry("PreCompact", "", "cat > compact.json")),
    )
    await agent.compact()
    payload = json.loads((tmp_path / "compact.json").read_text())
    assert (payload["hook_event_name"], payload["trigger"]) == ("PreCompact", "manual")
    ran = [e for e in rec.events if isinstance(e, HookRunEvent)]
    assert [(e.phase, e.event, e.outcome) for e in ran] == [
        ("start", "PreCompact", None),
        ("end", "PreCompact", "ok"),
    ]


async def test_a_pre_tool_use_ask_asks_even_in_auto_and_post_tool_use_adds_context(
    tmp_path: Path,
) -> None:
    asked: list[str] = []

    async def prompter(question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        asked.append(question.title)
        return "allow_once"

    ask = json.dumps(
        {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "prod"}}
    )
    extra = json.dumps({"hookSpecificOutput": {"additionalContext": "remember the changelog"}})
    board = Board(auto=True)
    work = tool_class("work", safe=False)(board)
    model = ScriptedModel([reply("", call("work", "a")), reply("done")])
    agent = Agent(
        model,
        ToolRegistry([work]),
        AgentOptions(cwd=tmp_path),
        gate=ApprovalGate("auto", prompter),
        budget=ConcurrencyBudget(8),
        hooks=hooks(
            tmp_path,
            Entry("PreToolUse", "work", f"echo '{ask}'"),
            Entry("PostToolUse", "", f"echo '{extra}'"),
        ),
    )
    result = await agent.run("go")
    assert result.stop_reason == "completed"
    assert asked == ['prod: work {"key": "a"}']
    tool_message = model.requests[1].messages[-1]
    assert not isinstance(tool_message, UserMessage)
    texts = json.dumps(tool_message.model_dump())
    assert "remember the changelog" in texts

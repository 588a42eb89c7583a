"""Compaction pieces: where the cut falls, what the summariser reads, the compacted view,
token counting, and a cancelled or failed summary leaving the history as it was."""

from __future__ import annotations

import asyncio

import pytest

from ink_ls.agent.compaction import (
    SUMMARY_HEADER,
    CompactionCancelledError,
    CompactionError,
    Compactor,
    choose_cut,
    compacted_view,
    transcript,
)
from ink_ls.agent.tokens import context_tokens, estimate_fixed, estimate_message
from ink_ls.core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolCall,
    ToolResultEntry,
    ToolResultMessage,
    Usage,
    user_text,
)
from ink_ls.core.signal import CancelController
from tests.unit.agent.agent_fakes import ScriptedModel, hang


def turn(n: int, size: int = 400) -> list[Message]:
    call = ToolCall(id=f"c{n}", name="read", arguments='{"path": "a.txt"}')
    return [
        user_text(f"prompt {n}"),
        AssistantMessage(
            tool_calls=[call],
            stop_reason="tool_use",
            usage=Usage(input_tokens=100 * n, output_tokens=5),
        ),
        ToolResultMessage(
            results=[
                ToolResultEntry(
                    tool_call_id=f"c{n}", tool_name="read", content=[TextBlock(text="x" * size)]
                )
            ]
        ),
        AssistantMessage(
            text=f"answer {n}", usage=Usage(input_tokens=100 * n + 50, output_tokens=3)
        ),
    ]


def history(turns: int) -> list[Message]:
    return [m for n in range(turns) for m in turn(n)]


def test_the_cut_keeps_the_latest_turns_and_never_splits_a_call_from_its_result() -> None:
    h = history(6)
    per_turn = sum(estimate_message(m) for m in turn(0))
    cut = choose_cut(h, keep_tokens=2 * per_turn + 10)
    assert cut is not None and not isinstance(h[cut], ToolResultMessage)
    assert h[cut:] == h[-8:]  # two whole turns
    # mid-turn (calls answered, no reply yet): the pair stays together
    mid = h + turn(6)[:3]
    small = choose_cut(mid, keep_tokens=1)
    assert small is not None and mid[small:] == mid[-2:]
    assert choose_cut(h[:1], keep_tokens=10_000) is None  # nothing older to summarise


def test_the_view_is_the_summary_then_the_tail_without_stale_usage() -> None:
    h = history(3)
    view = compacted_view(h, "they read a.txt three times", 4)
    assert view[0] == user_text(f"{SUMMARY_HEADER}\n\nthey read a.txt three times")
    assert [m.model_dump(exclude={"usage"}) for m in view[1:]] == [
        m.model_dump(exclude={"usage"}) for m in h[-4:]
    ]
    assert all(m.usage == Usage() for m in view[1:] if isinstance(m, AssistantMessage))


def test_tokens_anchor_on_the_last_reported_reply_and_estimate_the_rest() -> None:
    h = history(2)
    last = h[-1]
    assert isinstance(last, AssistantMessage)
    assert context_tokens(h, "sys", []) == last.usage.input_tokens + last.usage.output_tokens
    extra = user_text("one more question")
    assert context_tokens([*h, extra], "sys", []) == 153 + estimate_message(extra)
    view = compacted_view(h, "s", 4)  # nothing reported since: all estimated
    assert context_tokens(view, "sys", []) == estimate_fixed("sys", []) + sum(
        estimate_message(m) for m in view
    )


def test_a_long_transcript_loses_its_middle_and_says_so() -> None:
    text = transcript(history(40), max_chars=3_000)
    assert len(text) <= 3_000
    assert text.startswith("USER:\nprompt 0") and "answer 39" in text
    assert "[… the middle of the conversation was cut to fit …]" in text
    assert 'ASSISTANT called read({"path": "a.txt"})' in transcript(history(1), 10_000)


async def test_compactor_summarises_the_older_part() -> None:
    model = ScriptedModel([AssistantMessage(text="S: read a.txt six times")])
    compactor = Compactor(model, window=4_000, threshold=0.8)
    h = history(6)
    done = await compactor.compact(
        h,
        fixed_tokens=500,
        tokens_before=3_500,
        reason="threshold",
        signal=CancelController().signal,
    )
    assert done is not None and done.summary == "S: read a.txt six times"
    assert 0 < done.kept < len(h) and done.tokens_after < 3_500
    sent = model.requests[0]
    assert sent.tools == [] and "prompt 0" in str(sent.messages[0])
    assert "answer 5" not in str(sent.messages[0])  # the kept tail is not summarised


async def test_a_cancelled_or_failed_summary_raises_and_changes_nothing() -> None:
    h = history(6)
    snapshot = [m.model_copy() for m in h]
    controller = CancelController()
    hanging = ScriptedModel([hang])
    compactor = Compactor(hanging, window=4_000)
    task = asyncio.ensure_future(
        compactor.compact(
            h, fixed_tokens=500, tokens_before=3_500, reason="threshold", signal=controller.signal
        )
    )
    await hanging.request_seen.wait()
    controller.cancel("user")
    with pytest.raises(CompactionCancelledError):
        await asyncio.wait_for(task, 5)
    empty = Compactor(ScriptedModel([AssistantMessage(text="  ")]), window=4_000)
    with pytest.raises(CompactionError, match="empty summary"):
        await empty.compact(
            h,
            fixed_tokens=500,
            tokens_before=3_500,
            reason="manual",
            signal=CancelController().signal,
        )
    assert h == snapshot

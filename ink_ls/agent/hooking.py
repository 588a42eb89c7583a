"""The agent's hook-ins: PreToolUse before the gate, PostToolUse after a call, the prompt's
hooks (SessionStart, UserPromptSubmit), Stop at a turn's end, and the event that reports each
hook run. The hooks themselves (matching, running, their answers) live in
`ink_ls.hooks`; this module only applies their verdicts to a call.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from pydantic import ValidationError

from ink_ls.agent.events import HookRunEvent
from ink_ls.agent.gate import Gate
from ink_ls.agent.pipeline import (
    CallResult,
    PreparedCall,
    blocked_text,
    check_gate,
    error_result,
)
from ink_ls.core.messages import TextBlock, UserMessage, user_text
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import ArgumentsError
from ink_ls.hooks.engine import HookReport, Hooks

MAX_DIFF_LINES = 200
MAX_WATCHED_BYTES = 1 << 20


def hook_event(report: HookReport) -> HookRunEvent:
    """The agent event for one hook start or end."""
    return HookRunEvent(
        phase="start" if report.outcome is None else "end",
        event=report.event,
        command=report.command,
        tool_call_id=report.tool_call_id,
        outcome=report.outcome,
        message=report.message,
        duration_ms=report.duration_ms,
    )


def _args_dict(prepared: PreparedCall) -> dict[str, object]:
    return prepared.args.model_dump(mode="json", exclude_none=True)


async def admit(
    prepared: PreparedCall, gate: Gate, hooks: Hooks | None, signal: CancelSignal, cwd: Path
) -> PreparedCall | CallResult:
    """PreToolUse hooks, then the gate: the call to run (its input maybe rewritten), or a
    refusal. A hook's `allow` skips the gate, `ask` makes it ask, `deny` and exit 2 refuse."""
    call = prepared.call
    verdict = None
    if hooks is not None:
        verdict = await hooks.pre_tool_use(call.name, _args_dict(prepared), call.id, signal)
    if verdict is not None:
        if verdict.blocked is not None:
            return error_result(call, blocked_text(call.name, "PreToolUse hook", verdict.blocked))
        if verdict.updated_input is not None:
            try:
                args = prepared.tool.validate_arguments(verdict.updated_input)
            except (ValidationError, ArgumentsError) as exc:
                return error_result(
                    call,
                    f"Error: a PreToolUse hook rewrote the arguments of {call.name} into invalid "
                    f"ones ({exc}); the call did not run. Tell the user the hook needs fixing.",
                )
            prepared = PreparedCall(call, prepared.tool, args, rewritten=True)
        if verdict.permission == "allow":
            return prepared
        if verdict.permission == "ask":
            prepared.ask = verdict.reason or "a PreToolUse hook asks for approval"
    blocked = await check_gate(prepared, gate, signal, cwd)
    return prepared if blocked is None else blocked


def _snapshot(paths: list[Path]) -> dict[Path, bytes | None]:
    found: dict[Path, bytes | None] = {}
    for path in paths:
        try:
            found[path] = path.read_bytes() if path.stat().st_size <= MAX_WATCHED_BYTES else None
        except OSError:
            found[path] = None
    return found


def _diff(path: Path, before: bytes, after: bytes, cwd: Path) -> str:
    name = str(path.relative_to(cwd)) if path.is_relative_to(cwd) else str(path)
    lines = list(
        difflib.unified_diff(
            before.decode("utf-8", "replace").splitlines(keepends=True),
            after.decode("utf-8", "replace").splitlines(keepends=True),
            f"a/{name}",
            f"b/{name}",
        )
    )
    cut = len(lines) > MAX_DIFF_LINES
    text = "".join(lines[:MAX_DIFF_LINES])
    note = f"\n[diff cut at {MAX_DIFF_LINES} lines; read {name} to see it all]" if cut else ""
    return f"[A PostToolUse hook changed {name} after this call:]\n{text}{note}"


async def after_call(
    prepared: PreparedCall, result: CallResult, hooks: Hooks | None, signal: CancelSignal, cwd: Path
) -> CallResult:
    """PostToolUse hooks of a successful call; what they say, and any change they made to the
    files the call wrote (a formatter), is added to the result the model reads."""
    notes: list[str] = []
    if prepared.rewritten:
        notes.append("[A PreToolUse hook rewrote the arguments of this call before it ran.]")
    if hooks is not None and not result.is_error and not signal.cancelled:
        call = prepared.call
        args = _args_dict(prepared)
        if hooks.matching("PostToolUse", None):
            access = prepared.tool.access(prepared.args, cwd)
            written = sorted(access.writes) if access is not None else []
            before = _snapshot(written)
            text = "\n".join(b.text for b in result.content if isinstance(b, TextBlock))
            response: dict[str, object] = {"output": text, "success": True}
            if written:
                response["filePath"] = str(written[0])
            notes += await hooks.post_tool_use(call.name, args, response, call.id, signal)
            for path, after in _snapshot(written).items():
                old = before.get(path)
                if old is not None and after is not None and old != after:
                    notes.append(_diff(path, old, after, cwd))
    if not notes:
        return result
    content = [*result.content, TextBlock(text="\n\n".join(notes))]
    return CallResult(
        result.tool_call_id,
        result.tool_name,
        content,
        result.is_error,
        result.display,
        result.duration_ms,
    )


async def submit(
    hooks: Hooks | None, message: UserMessage, signal: CancelSignal
) -> UserMessage | str:
    """The user's message with what SessionStart and UserPromptSubmit hooks add as context,
    or the reason a blocking hook refused it (for the user; the prompt is dropped)."""
    if hooks is None:
        return message
    prompt = "\n".join(b.text for b in message.content if isinstance(b, TextBlock))
    verdict = await hooks.user_prompt_submit(prompt, signal)
    if verdict.blocked is not None:
        return f"the prompt was blocked by a UserPromptSubmit hook: {verdict.blocked}"
    if not verdict.context:
        return message
    extra = [TextBlock(text=c) for c in verdict.context]
    return message.model_copy(update={"content": [*message.content, *extra]})


async def stop_feedback(
    hooks: Hooks | None, active: bool, signal: CancelSignal
) -> UserMessage | None:
    """At the end of a turn: the message that makes the model go on when a Stop hook blocks
    the end (`active`: a Stop hook already continued this run), else None."""
    if hooks is None or signal.cancelled:
        return None
    reason = await hooks.stop(active, signal)
    if reason is None or signal.cancelled:
        return None
    return user_text(f"Stop hook feedback:\n{reason}")

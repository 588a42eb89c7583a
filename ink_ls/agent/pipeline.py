"""The one-call pipeline: look the tool up, decode and validate the arguments, ask the gate,
execute, and turn every outcome into one `CallResult` shape; each refusal and failure has one
fixed text (the functions below), which the model reads and the tests pin.

It runs one call; ordering, windows, budgets and grace belong to the scheduler, not here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ink_ls.agent.events import ToolEndEvent, ToolSettledEvent, ToolStartEvent
from ink_ls.agent.gate import Gate, GateRequest, allow_all
from ink_ls.core.messages import ContentBlock, TextBlock, ToolCall, ToolResultEntry
from ink_ls.core.signal import CancelledError, CancelSignal, race
from ink_ls.core.tool import (
    AnyTool,
    ArgumentsError,
    ChangeRejectedError,
    Display,
    ToolContext,
    ToolParams,
    ToolRegistry,
    aborted_result,
    result_problem,
)

MAX_SCHEMA_ERRORS = 5
INTERRUPTED = "(interrupted before this tool ran)"
NOT_EXECUTED_MAX_TURNS = "(not executed: reached max turns)"

log = logging.getLogger(__name__)


@dataclass
class CallResult:
    """Every outcome of one call, success or not; `entry()` is what history keeps."""

    tool_call_id: str
    tool_name: str
    content: list[ContentBlock]
    is_error: bool = False
    display: Display | None = None
    duration_ms: float | None = None
    cancelled: bool = False
    """The run's cancel ended the call (stopped, abandoned, or never started); an error too."""

    def entry(self) -> ToolResultEntry:
        """The history form: no display, no timings."""
        return ToolResultEntry(
            tool_call_id=self.tool_call_id,
            tool_name=self.tool_name,
            content=self.content,
            is_error=self.is_error,
        )

    def end_event(self) -> ToolEndEvent:
        """The `tool_end` that delivers this result (to the editor: with display and timing)."""
        return ToolEndEvent(
            tool_call_id=self.tool_call_id,
            tool_name=self.tool_name,
            content=self.content,
            is_error=self.is_error,
            display=self.display,
            duration_ms=self.duration_ms,
            cancelled=self.cancelled,
        )

    def settled_event(self) -> ToolSettledEvent:
        """The `tool_settled` of this result (in completion order; execution time only)."""
        return ToolSettledEvent(
            tool_call_id=self.tool_call_id,
            tool_name=self.tool_name,
            is_error=self.is_error,
            duration_ms=self.duration_ms or 0.0,
            cancelled=self.cancelled,
        )


@dataclass
class PreparedCall:
    """A call whose tool exists and whose arguments validated; ready for the gate."""

    call: ToolCall
    tool: AnyTool
    args: ToolParams
    rewritten: bool = False
    """A PreToolUse hook replaced the arguments (the model is told)."""
    ask: str | None = None
    """A PreToolUse hook asked that the user approve this call (the reason)."""


class _Invalid:
    """Marks arguments that are not valid JSON at all."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


def error_result(call: ToolCall, text: str) -> CallResult:
    """An error result for `call` carrying `text` as its only content."""
    return CallResult(call.id, call.name, [TextBlock(text=text)], is_error=True)


def blocked_text(name: str, source: str, reason: str | None) -> str:
    """`Tool "<name>" blocked by <source>: <reason>`; without a source, `Tool "<name>" was
    blocked: <reason>` (a gate may refuse without naming itself)."""
    why = (reason or "").strip() or "no reason given"
    who = source.strip()
    return f'Tool "{name}" blocked by {who}: {why}' if who else f'Tool "{name}" was blocked: {why}'


def interrupted_result(call: ToolCall) -> CallResult:
    """For a call that never started because the run was cancelled."""
    return _stopped(error_result(call, INTERRUPTED))


def abandoned_result(call: ToolCall, grace_seconds: float) -> CallResult:
    """For a call still running when the grace deadline after a cancel passed."""
    return _stopped(
        error_result(
            call,
            f"Tool {call.name} did not respond to the interrupt within {grace_seconds:g}s"
            " — result abandoned; the underlying process may still be running.",
        )
    )


def _stopped(result: CallResult) -> CallResult:
    result.cancelled = True
    return result


def truncated_reply_result(call: ToolCall) -> CallResult:
    """For every call of a reply cut at the output-token limit (never executed)."""
    return error_result(
        call,
        f'Tool call "{call.name}" was not executed: the response hit the output token limit,'
        " so its arguments may be truncated. Re-issue the tool call with complete arguments.",
    )


def failed_reply_result(call: ToolCall) -> CallResult:
    """For a call started while the reply streamed, when that reply then failed (its calls
    do not enter history; this result only closes the call for the user)."""
    return error_result(call, "(stopped: the model reply failed before it was complete)")


def max_turns_result(call: ToolCall) -> CallResult:
    return error_result(call, NOT_EXECUTED_MAX_TURNS)


def decode_arguments(raw: str) -> object:
    """The parsed JSON value, or `_Invalid` when the text is not JSON.

    An empty string counts as `{}`: some endpoints send it for calls without arguments.
    """
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        return _Invalid(
            f"arguments are not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        )
    except RecursionError:
        return _Invalid("arguments are not valid JSON: nested too deeply")


def arguments_object(decoded: object) -> dict[str, Any] | None:
    """The decoded arguments when they are a JSON object (for `tool_start`), else None."""
    return decoded if isinstance(decoded, dict) else None


def _pointer(loc: tuple[int | str, ...], data: object) -> str:
    """A JSON pointer into the model's arguments for a pydantic error location.

    pydantic puts union member tags (`int`, `str`, model names) into `loc`; they are not in
    the data, so the location is walked along the data and tags are left out. A key missing
    from an object at the end of `loc` is kept: it names the missing field.
    """
    parts: list[str] = []
    current: object = data
    for n, step in enumerate(loc):
        last = n == len(loc) - 1
        if isinstance(current, dict) and isinstance(step, str):
            if step in current:
                current = current[step]
            elif not last:
                continue  # a union tag
        elif isinstance(current, list) and isinstance(step, int) and 0 <= step < len(current):
            current = current[step]
        elif (isinstance(step, str) and not last) or not isinstance(current, dict | list):
            continue  # a tag below a scalar
        parts.append(str(step).replace("~", "~0").replace("/", "~1"))
    return "/" + "/".join(parts) if parts else "(root)"


def _schema_errors(exc: ValidationError, data: object) -> str:
    errors = exc.errors(include_url=False)[:MAX_SCHEMA_ERRORS]
    return "; ".join(f"{_pointer(tuple(e['loc']), data)}: {e['msg']}" for e in errors)


def _invalid_text(name: str, errors: str) -> str:
    return f"Error: invalid arguments for {name} — {errors}. Fix the arguments and retry."


def start_event(call: ToolCall, tools: ToolRegistry, decoded: object, cwd: Path) -> ToolStartEvent:
    """The `tool_start` of a call, titled and kinded by its tool (its name for an unknown one)."""
    args = arguments_object(decoded)
    tool = tools.get(call.name)
    title = tool.title(args or {}, cwd) if tool is not None else call.name
    return ToolStartEvent(
        tool_call_id=call.id,
        tool_name=call.name,
        arguments=args,
        title=title,
        kind=tool.kind if tool is not None else "other",
    )


def prepare(call: ToolCall, tools: ToolRegistry, decoded: object) -> PreparedCall | CallResult:
    """Steps 1–3: find the tool, require a JSON object, validate. A refusal is a `CallResult`."""
    tool = tools.get(call.name)
    if tool is None:
        names = ", ".join(tools.names) or "(none)"
        return error_result(call, f'Error: unknown tool "{call.name}". Available tools: {names}.')
    if isinstance(decoded, _Invalid):
        return error_result(call, _invalid_text(call.name, f"(root): {decoded.message}"))
    if not isinstance(decoded, dict):
        shown = call.arguments.strip()[:200]
        return error_result(call, f"Error: tool arguments must be a JSON object, got: {shown}")
    try:
        args = tool.validate_arguments(decoded)
    except ValidationError as exc:
        return error_result(call, _invalid_text(call.name, _schema_errors(exc, decoded)))
    except ArgumentsError as exc:
        errors = "; ".join(f"{p}: {m}" for p, m in exc.errors[:MAX_SCHEMA_ERRORS])
        return error_result(call, _invalid_text(call.name, errors))
    return PreparedCall(call, tool, args)


async def check_gate(
    prepared: PreparedCall, gate: Gate, signal: CancelSignal, cwd: Path
) -> CallResult | None:
    """Step 4: ask the gate. A block, a failing gate, or a cancel while waiting → blocked result.

    A cancel ends the wait at once (the reference leaves it unbounded): an approval pending
    in the editor must not keep a cancelled run alive.
    """
    if gate is allow_all:  # the common headless case: no task, no subscription
        return None
    call = prepared.call
    request = GateRequest(prepared.tool, call.id, prepared.args, cwd, ask=prepared.ask)
    cancelled = error_result(
        call, blocked_text(call.name, "user", "cancelled while waiting for approval")
    )
    cancelled.cancelled = signal.cancelled
    try:
        decision = await race(gate(request, signal), signal)
    except CancelledError:
        return cancelled
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        return cancelled  # the gate's own wait was cancelled
    except Exception as exc:  # a broken gate must never let the call through
        return error_result(
            call, blocked_text(call.name, "gate", f"the approval check failed: {exc}")
        )
    if decision is None:
        return None
    return error_result(call, blocked_text(call.name, decision.source, decision.reason))


async def execute(prepared: PreparedCall, signal: CancelSignal, context: ToolContext) -> CallResult:
    """Step 5: run the tool; any exception becomes an error result. Sets `duration_ms`."""
    call, tool = prepared.call, prepared.tool
    started = time.perf_counter()
    try:
        result = await tool.execute(prepared.args, signal, context)
    except ChangeRejectedError as exc:
        out = error_result(call, blocked_text(call.name, exc.source, exc.reason))
    except CancelledError:  # the tool let its cancel escape: the same text tools return
        out = error_result(call, aborted_result(call.name).output)
    except Exception as exc:
        message = str(exc) or type(exc).__name__
        out = error_result(call, f"Error: tool {call.name} threw: {message}")
    else:
        problem = result_problem(result)
        if problem is not None:
            log.error("tool %s returned an invalid result: %s", call.name, problem)
            out = error_result(
                call, f"Error: tool {call.name} returned an invalid result ({problem})."
            )
        else:
            content: list[ContentBlock] = (
                result.content if result.content is not None else [TextBlock(text=result.output)]
            )
            out = CallResult(call.id, call.name, content, result.is_error, result.display)
    out.duration_ms = (time.perf_counter() - started) * 1000.0
    out.cancelled = out.is_error and signal.cancelled  # the tool stopped for the cancel
    return out

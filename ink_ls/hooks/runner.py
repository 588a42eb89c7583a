"""Run one hook command: JSON on stdin, then read its exit code, stderr and JSON output.

Exit 0 is success (stdout may be JSON), exit 2 blocks (stderr is the reason), any other exit
or a timeout is a non-blocking failure that is only reported: a hook never blocks by hanging.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ink_ls.core.signal import CancelSignal
from ink_ls.hooks.config import DEFAULT_TIMEOUT, HookSpec
from ink_ls.tools.processes import run_captured

Outcome = Literal["ok", "blocked", "failed", "timeout", "cancelled"]
PermissionDecision = Literal["allow", "deny", "ask"]


@dataclass
class HookResult:
    """What one hook said. `blocked` (exit 2 or `decision: block`/`deny`) carries `reason`."""

    command: str
    outcome: Outcome
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    reason: str | None = None
    permission: PermissionDecision | None = None
    updated_input: dict[str, Any] | None = None
    context: str | None = None
    """Text for the model: plain stdout of a context event, or `additionalContext`."""
    stop: str | None = None
    """`continue: false`: the turn ends, with this reason for the user."""
    duration_ms: float = 0.0
    output: dict[str, Any] = field(default_factory=dict)

    @property
    def blocked(self) -> bool:
        return self.outcome == "blocked"

    def summary(self) -> str:
        """One line for the user: how the hook ended."""
        if self.outcome == "ok":
            return "done"
        if self.outcome == "timeout":
            return "timed out and was killed (not blocking)"
        if self.outcome == "cancelled":
            return "killed by the cancel"
        if self.outcome == "blocked":
            return f"blocked: {self.reason or 'no reason given'}"
        detail = self.stderr.strip().splitlines()[-1:] or [f"exit {self.exit_code}"]
        return f"failed (not blocking): {detail[0]}"


def _json_output(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _read_output(result: HookResult, data: dict[str, Any], context_event: bool) -> None:
    """Claude Code's JSON output fields, old and new spellings."""
    result.output = data
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    decision = data.get("decision")
    reason = data.get("reason")
    permission = specific.get("permissionDecision")
    if decision == "approve":  # the older spelling of permissionDecision
        permission = permission or "allow"
    if permission in ("allow", "deny", "ask"):
        result.permission = permission
        why = specific.get("permissionDecisionReason", reason)
        result.reason = why if isinstance(why, str) else None
    if decision == "block" or result.permission == "deny":
        result.outcome = "blocked"
        if result.reason is None and isinstance(reason, str):
            result.reason = reason
    updated = specific.get("updatedInput", data.get("updatedInput"))
    if isinstance(updated, dict):
        result.updated_input = updated
    extra = specific.get("additionalContext")
    if isinstance(extra, str) and extra.strip():
        result.context = extra
    if data.get("continue") is False:
        stop = data.get("stopReason")
        result.stop = stop if isinstance(stop, str) and stop else "a hook stopped the turn"


async def run_hook(
    hook: HookSpec,
    payload: dict[str, Any],
    *,
    cwd: Path,
    env: dict[str, str],
    signal: CancelSignal,
    context_event: bool = False,
) -> HookResult:
    """Run `hook` with `payload` on stdin; `context_event`: plain stdout is context."""
    started = time.perf_counter()
    timeout = hook.timeout or DEFAULT_TIMEOUT
    ran = await run_captured(
        hook.command,
        cwd=cwd,
        env=env,
        stdin=json.dumps(payload, ensure_ascii=False).encode(),
        timeout=timeout,
        signal=signal,
    )
    result = HookResult(hook.command, "ok", ran.exit_code, ran.stdout, ran.stderr)
    result.duration_ms = (time.perf_counter() - started) * 1000.0
    if ran.stopped == "timeout":
        result.outcome = "timeout"
        result.stderr = f"the hook did not finish within {timeout:g}s and was killed"
    elif ran.stopped == "cancel":
        result.outcome = "cancelled"
    elif ran.exit_code is None:
        result.outcome = "failed"
        result.stderr = ran.error or "the hook ended without an exit status"
    elif ran.exit_code == 2:
        result.outcome = "blocked"
        result.reason = ran.stderr.strip() or None
    elif ran.exit_code != 0:
        result.outcome = "failed"
    else:
        data = _json_output(ran.stdout)
        if data is not None:
            _read_output(result, data, context_event)
        elif context_event and ran.stdout.strip():
            result.context = ran.stdout.strip()
    return result

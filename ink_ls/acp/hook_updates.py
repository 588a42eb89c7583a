"""A hook of the user's settings as ACP updates: a tool call of kind `execute` (`hook
PreToolUse: ./check.sh`) in progress while it runs, then completed or failed with its outcome
(a blocking hook's message is the call's content), so an ACP client shows it like the editors.

Pure mapping: it sends nothing.
"""

from __future__ import annotations

from acp import start_tool_call, text_block, tool_content, update_tool_call
from acp.helpers import SessionUpdate

from ink_ls.agent.events import HookRunEvent

HOOK_CALL_PREFIX = "ink-hook-"
"""The tool call ids of hook runs (`ink-hook-1`, …), apart from the model's call ids."""

_OUTCOME_WORDS = {
    "ok": "ok",
    "blocked": "blocked",
    "failed": "failed",
    "timeout": "timed out",
    "cancelled": "cancelled",
}


def _title(event: HookRunEvent) -> str:
    command = " ".join(event.command.split())
    short = command if len(command) <= 60 else command[:59] + "…"
    return f"hook {event.event}: {short}"


class HookUpdates:
    """Pairs each hook's end with its start (same event, command and call), one id each."""

    def __init__(self) -> None:
        self._count = 0
        self._running: dict[tuple[str, str, str | None], list[str]] = {}

    def updates(self, event: HookRunEvent) -> list[SessionUpdate]:
        """The update(s) for one hook start or end."""
        key = (event.event, event.command, event.tool_call_id)
        if event.phase == "start":
            self._count += 1
            call_id = f"{HOOK_CALL_PREFIX}{self._count}"
            self._running.setdefault(key, []).append(call_id)
            raw = {"hookEvent": event.event, "command": event.command}
            if event.tool_call_id is not None:
                raw["toolCallId"] = event.tool_call_id
            return [
                start_tool_call(
                    call_id, _title(event), kind="execute", status="in_progress", raw_input=raw
                )
            ]
        started = self._running.get(key)
        if not started:
            return []  # an end without its start (not sent by the hooks engine)
        call_id = started.pop(0)
        outcome = event.outcome or "ok"
        text = event.message or _OUTCOME_WORDS.get(outcome, outcome)  # it names the outcome
        return [
            update_tool_call(
                call_id,
                status="completed" if outcome == "ok" else "failed",
                content=[tool_content(text_block(text))],
                raw_output={"outcome": outcome, "message": event.message},
            )
        ]

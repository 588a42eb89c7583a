"""A running command's output over ACP, live.

For a client that announces `terminal: true` and `_meta.terminal_output: true` (Zed's
display-only terminal, which claude-agent-acp and codex-acp use too) a `bash` call carries
`{"type": "terminal", "terminalId": <call id>}` content and its output arrives as
`_meta.terminal_output` chunks, ending with `_meta.terminal_exit`; the command still runs in
ink-ls (sandbox, process-group kill, approvals unchanged). Any other client gets the output so
far as the call's text content, updated as it comes.
"""

from __future__ import annotations

import re
from typing import Any

from acp import text_block, tool_content, update_tool_call
from acp.helpers import SessionUpdate, ToolCallContentVariant
from acp.schema import ClientCapabilities, TerminalToolCallContent

LIVE_CAP = 20_000
"""Characters of a running command's output shown as text content (the result has it all)."""
LIVE_TOOLS = frozenset({"bash"})
_EXIT = re.compile(r"^Exit code: (\d+)$", re.MULTILINE)


def display_terminal(caps: ClientCapabilities) -> bool:
    """Whether the client shows agent-run commands as terminals (`_meta.terminal_output`)."""
    meta = caps.field_meta or {}
    return bool(caps.terminal) and meta.get("terminal_output") is True


class LiveOutput:
    """Per session: the output of its running commands, as updates."""

    def __init__(self) -> None:
        self.terminals = False
        """The client shows display-only terminals (`display_terminal`)."""
        self._text: dict[str, str] = {}
        self._terminal: set[str] = set()

    def started(self, call_id: str, tool: str) -> tuple[list[ToolCallContentVariant], Any]:
        """(content, `_meta`) for the call's `tool_call`: a terminal for a command when the
        client shows them, else nothing."""
        if not self.terminals or tool not in LIVE_TOOLS:
            return [], None
        self._terminal.add(call_id)
        content = TerminalToolCallContent(type="terminal", terminal_id=call_id)
        return [content], {"terminal_info": {"terminal_id": call_id}}

    def output(self, call_id: str, text: str) -> SessionUpdate:
        """The update for new output of a running call."""
        if call_id in self._terminal:
            update = update_tool_call(call_id, status="in_progress")
            update.field_meta = {"terminal_output": {"terminal_id": call_id, "data": text}}
            return update
        live = (self._text.get(call_id, "") + text)[-LIVE_CAP:]
        self._text[call_id] = live
        fenced = f"```console\n{live.rstrip()}\n```"
        return update_tool_call(
            call_id, status="in_progress", content=[tool_content(text_block(fenced))]
        )

    def ended(
        self, call_id: str, content: list[ToolCallContentVariant], failed: bool, output: str = ""
    ) -> tuple[list[ToolCallContentVariant], Any]:
        """(content, `_meta`) of the call's last update: its terminal stays in view, with the
        exit code the result states (`Exit code: N`), else 0, or 1 for a failure without one."""
        self._text.pop(call_id, None)
        if call_id not in self._terminal:
            return content, None
        self._terminal.discard(call_id)
        terminal = TerminalToolCallContent(type="terminal", terminal_id=call_id)
        stated = _EXIT.search(output)
        code = int(stated.group(1)) if stated else 1 if failed else 0
        exit_meta = {"terminal_id": call_id, "exit_code": code, "signal": None}
        return [terminal, *content], {"terminal_exit": exit_meta}

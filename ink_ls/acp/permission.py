"""`session/request_permission` for commands (the gate's `Prompter`) and file changes (the
writer's question, with the diff): allow once, always allow, always in this project (with rules
to save), reject; and a plan's "Approve and continue in Ask / Auto"."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

from acp import text_block, tool_content, tool_diff_content
from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallLocation,
    ToolCallUpdate,
)

from ink_ls.acp.outbox import Outbox
from ink_ls.agent.approval import ApprovalQuestion, Choice
from ink_ls.agent.writes import ProposedChange
from ink_ls.core.signal import CancelSignal

OPTIONS = [
    PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]
PROJECT_OPTION = PermissionOption(
    option_id="allow_project", name="Always in this project", kind="allow_always"
)
"""Offered when the question has rules to save (`.ink/settings.local.json`)."""
PLAN_OPTIONS = [
    PermissionOption(option_id="plan_ask", name="Approve and continue in Ask", kind="allow_once"),
    PermissionOption(
        option_id="plan_auto", name="Approve and continue in Auto", kind="allow_always"
    ),
    PermissionOption(option_id="plan_reject", name="Not now", kind="reject_once"),
]
PLAN_CALL_ID = "ink-plan"
_CHOICES: dict[str, Choice] = {
    "allow_once": "allow_once",
    "allow_always": "allow_always",
    "allow_project": "allow_project",
    "reject": "reject",
}


class PermissionClient(Protocol):
    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse: ...


class Permissions:
    """Asks the client on behalf of one session."""

    def __init__(
        self, client: Callable[[], PermissionClient], outbox: Outbox, session_id: str
    ) -> None:
        self._client = client
        self._outbox = outbox
        self._session_id = session_id

    async def _option(
        self, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> str | None:
        await self._outbox.flush()  # the client knows the tool call before it is asked about it
        response = await self._client().request_permission(
            session_id=self._session_id, tool_call=tool_call, options=options
        )
        outcome = response.outcome
        if isinstance(outcome, AllowedOutcome):
            return outcome.option_id
        return None  # "cancelled": the client withdrew the question (session/cancel)

    async def _ask(self, tool_call: ToolCallUpdate, *, project: bool = False) -> Choice | None:
        options = [*OPTIONS[:2], PROJECT_OPTION, OPTIONS[2]] if project else OPTIONS
        option = await self._option(tool_call, options)
        return _CHOICES.get(option) if option is not None else None

    async def plan(self, plan: str) -> Literal["ask", "auto"] | None:
        """The plan, with Approve and continue in Ask / Auto; None: not approved."""
        option = await self._option(
            ToolCallUpdate(
                tool_call_id=PLAN_CALL_ID,
                title="Approve the plan?",
                kind="think",
                status="pending",
                content=[tool_content(text_block(plan))],
            ),
            PLAN_OPTIONS,
        )
        return {"plan_ask": "ask", "plan_auto": "auto"}.get(option or "")  # type: ignore[return-value]

    async def __call__(self, question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        """The gate's `Prompter`: commands, access outside the workspace, workspace trust."""
        if question.kind == "trust":  # what would run, shown in full
            return await self._ask(
                ToolCallUpdate(
                    tool_call_id=question.tool_call_id,
                    title=question.title,
                    kind="other",
                    status="pending",
                    content=[tool_content(text_block(question.detail))],
                    raw_input={"trustWorkspace": question.detail},
                )
            )
        try:
            raw: Any = json.loads(question.detail)
        except ValueError:
            raw = question.detail
        return await self._ask(
            ToolCallUpdate(
                tool_call_id=question.tool_call_id,
                title=question.title,
                kind="execute" if question.kind == "command" else "other",
                status="pending",
                raw_input=raw,
            ),
            project=bool(question.project_rules),
        )

    async def change(self, changes: Sequence[ProposedChange]) -> Choice | None:
        """The writer's question: one change, shown as a diff per file (a rename's files
        under one decision)."""
        first = changes[0]
        if len(changes) > 1:
            title = f"Edit {len(changes)} files: {', '.join(str(c.path) for c in changes)}"
        else:
            title = f"{'Create' if first.old_text is None else 'Edit'} {first.path}"
        return await self._ask(
            ToolCallUpdate(
                tool_call_id=first.tool_call_id,
                title=title,
                kind="edit",
                status="pending",
                content=[tool_diff_content(str(c.path), c.new_text, c.old_text) for c in changes],
                locations=[ToolCallLocation(path=str(c.path)) for c in changes],
            )
        )

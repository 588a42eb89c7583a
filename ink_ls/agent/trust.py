"""The workspace trust of a front end: what the question shows, and asking it through the
front end's `Prompter` (the editor's message request, the terminal, ACP's permission request).

Every front end makes its `WorkspaceTrust` here, so the question lists everything the
workspace's files would run, whichever part of ink-ls reads them.
"""

from __future__ import annotations

from pathlib import Path

from ink_ls.agent.approval import (
    DEFAULT_APPROVAL_TIMEOUT,
    ApprovalQuestion,
    Prompter,
    WaitInterruptedError,
    wait_answer,
)
from ink_ls.core.settings_files import describe_settings
from ink_ls.core.signal import NEVER, CancelSignal
from ink_ls.core.trust import Answer, Ask, Describer, TrustQuestion, WorkspaceTrust
from ink_ls.mcp.config import describe_servers

TRUST_CALL_ID = "ink-workspace-trust"
"""The tool call id of the trust question (a client shows it like a call's permission)."""
DESCRIBERS: tuple[Describer, ...] = (describe_servers, describe_settings)
"""What each reader of the workspace's files would run, for the question."""


def workspace_trust(root: Path, *, explicit: bool | None, interactive: bool) -> WorkspaceTrust:
    """The trust decision of `root` for one run, connection or session (see `WorkspaceTrust`)."""
    return WorkspaceTrust(root, explicit=explicit, interactive=interactive, describers=DESCRIBERS)


def trust_asker(
    prompter: Prompter, *, timeout: float = DEFAULT_APPROVAL_TIMEOUT, signal: CancelSignal = NEVER
) -> Ask:
    """The trust question through `prompter`: Allow once → this time, Always allow → remember,
    Reject, dismissed or no answer within `timeout` → no."""

    async def ask(q: TrustQuestion) -> Answer | None:
        item = ApprovalQuestion("trust", TRUST_CALL_ID, "trust", q.title, q.detail)
        try:
            choice = await wait_answer(prompter(item, signal), timeout=timeout, signal=signal)
        except WaitInterruptedError:
            return None
        if choice == "allow_always":
            return "always"
        return "once" if choice == "allow_once" else "no"

    return ask

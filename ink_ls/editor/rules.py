"""Permission rules and plan mode in the editor: the editor's own `ink.permissions` /
`ink.hooks` as settings sections, the settings files' notices said once per connection, and
the plan's "Approve and continue in ask/auto" as a message request.

The turn builder loads the rules and the gate decides; this module only gathers and asks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from ink_ls.editor.client import EditorClient
from ink_ls.editor.settings import InkSettings
from ink_ls.protocol import lsp
from ink_ls.protocol.methods import SHOW_MESSAGE_REQUEST
from ink_ls.protocol.models import WarningUpdate

PLAN_ACTIONS: tuple[tuple[str, str, Literal["ask", "auto"] | None], ...] = (
    ("Approve and continue in ask mode", "plan_ask", "ask"),
    ("Approve and continue in auto mode", "plan_auto", "auto"),
    ("Not now", "plan_reject", None),
)


def editor_rules(settings: InkSettings) -> dict[str, Any]:
    """The editor's `ink.permissions` / `ink.hooks` as a settings file's sections."""
    out: dict[str, Any] = {}
    if settings.permissions is not None:
        out["permissions"] = settings.permissions
    if settings.hooks is not None:
        out["hooks"] = settings.hooks
    return out


class EditorRules:
    """What the settings files told the user on this connection: each notice (a problem,
    what an untrusted project did not get) is sent once, as a `warning` update."""

    def __init__(self) -> None:
        self._said: set[str] = set()

    def report(self, notices: list[str], send: Callable[[WarningUpdate], None]) -> None:
        for notice in notices:
            if notice not in self._said:
                self._said.add(notice)
                send(WarningUpdate(message=notice))


async def ask_plan_approval(
    client: EditorClient, plan: str, *, option_ids: bool
) -> Literal["ask", "auto"] | None:
    """The plan with "Approve and continue in ask/auto mode" (a message request); None: not
    approved (dismissed or "Not now")."""
    actions = [(title, option if option_ids else None) for title, option, _ in PLAN_ACTIONS]
    message = "Ink has a plan. Approve it and continue?\n\n" + plan.strip()
    answer = await client.request(SHOW_MESSAGE_REQUEST, lsp.show_message_request(message, actions))
    if not isinstance(answer, Mapping):
        return None
    for title, option, mode in PLAN_ACTIONS:
        if answer.get("optionId") == option or answer.get("title") == title:
            return mode
    return None

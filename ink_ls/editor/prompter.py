"""The approval `Prompter` as `window/showMessageRequest`: Allow once / Always allow / Always in
this project / Reject.

It only asks and maps the answer; timeouts, cancel and "always" bookkeeping are the gate's.
"""

from __future__ import annotations

from typing import Any

from ink_ls.agent.approval import ApprovalQuestion, Choice
from ink_ls.core.signal import CancelSignal
from ink_ls.editor.client import ClientFeatures, EditorClient
from ink_ls.protocol import lsp
from ink_ls.protocol.methods import SHOW_MESSAGE_REQUEST
from ink_ls.protocol.models import ApprovalOptionId

ACTIONS: tuple[tuple[str, ApprovalOptionId, Choice], ...] = (
    ("Allow once", "allow_once", "allow_once"),
    ("Always allow", "allow_always", "allow_always"),
    ("Always in this project", "allow_project", "allow_project"),
    ("Reject", "reject_once", "reject"),
)
"""All actions; "Always in this project" is offered only with rules to save."""


def question_message(question: ApprovalQuestion) -> str:
    """The text of the prompt a person reads."""
    if question.kind == "command":
        text = f"Ink wants to run a command:\n{question.command or question.title}"
        if question.rule is not None:
            text += f"\n(asked by {question.rule})"
        if question.project_rules:
            text += f'\n"Always in this project" saves {", ".join(question.project_rules)}'
        return text
    if question.kind == "trust":
        return f"Ink: {question.title}\n{question.detail}"
    if question.kind == "outside_workspace":
        return f"Ink wants to access files outside the workspace:\n{question.title}"
    if question.kind == "hook":
        return f"A hook of your settings asks you to approve this call:\n{question.title}"
    return f"Ink wants to {question.title}"


def action_items(
    features: ClientFeatures, question: ApprovalQuestion | None = None
) -> list[tuple[str, str | None]]:
    """The actions, carrying ACP option ids when the client allows extra properties;
    "Always in this project" only when the question has rules to save."""
    ids = features.action_option_ids
    project = question is not None and bool(question.project_rules)
    return [
        (title, option if ids else None)
        for title, option, _ in ACTIONS
        if option != "allow_project" or project
    ]


def choice_of(answer: Any) -> Choice | None:
    """Map a `MessageActionItem` answer (or null) to a choice; unknown answers are None."""
    if not isinstance(answer, dict):
        return None
    option = answer.get("optionId")
    for title, option_id, choice in ACTIONS:
        if option == option_id or (option is None and answer.get("title") == title):
            return choice
    return None


class MessagePrompter:
    """A `Prompter` that asks through the editor's message request."""

    def __init__(self, client: EditorClient, features: ClientFeatures) -> None:
        self._client = client
        self._features = features

    async def __call__(self, question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        params = lsp.show_message_request(
            question_message(question), action_items(self._features, question)
        )
        # an extra member for our plugins only: lets a chat view show the question on the call
        # it is about (protocol.md, Approvals); eglot 1.9 fails a request with an unknown key
        if self._features.ink_plugin:
            params["ink"] = {"toolCallId": question.tool_call_id}
        answer = await self._client.request(SHOW_MESSAGE_REQUEST, params)
        return choice_of(answer)

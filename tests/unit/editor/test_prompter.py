"""The showMessageRequest prompter: the message a person reads, the actions, the answer mapping."""

from __future__ import annotations

from typing import Any

from ink_ls.agent.approval import ApprovalQuestion
from ink_ls.core.signal import NEVER
from ink_ls.editor.client import ClientFeatures
from ink_ls.editor.prompter import MessagePrompter, action_items, choice_of, question_message
from ink_ls.protocol import lsp, methods


class Recorder:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.sent.append((method, params))
        return self.answer

    def notify(self, method: str, params: dict[str, Any]) -> None:
        raise AssertionError("no notifications expected")


def question(kind: str = "command") -> ApprovalQuestion:
    return ApprovalQuestion(
        tool_name="bash",
        tool_call_id="call_1",
        kind=kind,  # type: ignore[arg-type]
        title="Run command: npm test",
        detail='{"command": "npm test"}',
        command="npm test",
    )


def test_messages() -> None:
    assert question_message(question()) == "Ink wants to run a command:\nnpm test"
    outside = ApprovalQuestion(
        "read", "c", "outside_workspace", "read: read outside the workspace: /etc/hosts", "{}"
    )
    assert question_message(outside) == (
        "Ink wants to access files outside the workspace:\n"
        "read: read outside the workspace: /etc/hosts"
    )
    change = ApprovalQuestion(
        "edit", "c", "change", "edit a.py (c): 1 line removed, 1 added", "a.py"
    )
    assert question_message(change) == "Ink wants to edit a.py (c): 1 line removed, 1 added"


def test_actions_carry_option_ids_only_when_supported() -> None:
    with_ids = lsp.show_message_request("m", action_items(ClientFeatures(action_option_ids=True)))
    assert with_ids["actions"][2] == {"title": "Reject", "optionId": "reject_once"}
    assert with_ids["type"] == 2  # MessageType.Warning
    plain = lsp.show_message_request("m", action_items(ClientFeatures()))
    assert plain["actions"] == [
        {"title": "Allow once"},
        {"title": "Always allow"},
        {"title": "Reject"},
    ]


def test_answers() -> None:
    assert choice_of({"title": "Allow once", "optionId": "allow_once"}) == "allow_once"
    assert choice_of({"title": "Always allow"}) == "allow_always"
    assert choice_of({"title": "Reject", "optionId": "reject_once"}) == "reject"
    assert choice_of(None) is None
    assert choice_of({"title": "Something else"}) is None


async def test_prompter_sends_a_warning_request() -> None:
    client = Recorder({"title": "Allow once"})
    prompter = MessagePrompter(client, ClientFeatures(ink_plugin=True))
    assert await prompter(question(), NEVER) == "allow_once"
    ((method, params),) = client.sent
    assert method == methods.SHOW_MESSAGE_REQUEST
    assert params["type"] == 2
    assert params["message"] == "Ink wants to run a command:\nnpm test"
    assert params["ink"] == {"toolCallId": question().tool_call_id}


async def test_a_plugin_less_client_gets_no_extra_member() -> None:
    """eglot 1.9 answers a showMessageRequest with an unknown key by an error."""
    client = Recorder({"title": "Reject"})
    assert await MessagePrompter(client, ClientFeatures())(question(), NEVER) == "reject"
    ((_, params),) = client.sent
    assert set(params) == {"type", "message", "actions"}

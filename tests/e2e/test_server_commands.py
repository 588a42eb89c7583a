"""Plugin-less clients: code actions and the `ink.ask` / `ink.cancel` commands over real stdio
(both capability presets, without `experimental.ink`): the actions offered for a selection and
a diagnostic, `ink.ask` answering at once while the turn runs, a short answer as
`window/showMessage`, a long one as a transcript opened with `window/showDocument`, a second
`ink.ask` refused while one runs, `ink.cancel`. A plugin client (`experimental.ink`) is offered
neither (the VS Code extension has its own `ink.ask`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ink_ls.protocol import methods
from tests.e2e.conftest import WAIT, InkClient, Starter
from tests.fakes.model_server import FakeModelServer, Reply, text, tool

LONG = "The module reads its settings, then greets. " * 12


async def plugin_less(start: Starter) -> InkClient:
    return await start(approval="auto", experimental={})


async def execute(client: InkClient, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=methods.COMMAND_ASK, arguments=list(arguments))
    )


async def next_message(client: InkClient, count: int = 0) -> types.ShowMessageParams:
    """The first `window/showMessage` after the first `count` ones."""
    async with asyncio.timeout(WAIT):
        while len(client.messages) == count:
            await client.wait_for_notification(methods.SHOW_MESSAGE)
    return client.messages[count]


async def test_code_actions_for_a_selection_and_a_diagnostic(start: Starter) -> None:
    client = await plugin_less(start)
    caps = client.init_result.capabilities if client.init_result else None
    assert caps is not None and caps.execute_command_provider is not None
    assert list(caps.execute_command_provider.commands) == ["ink.ask", "ink.cancel"]
    uri = client.open("app.py", "x = 1\nprint(y)\n")
    # plain JSON both ways: lsprotocol's client converter cannot tell a CodeAction with a
    # `command` from a Command (eglot's test shows the real client's view)
    client.protocol.extra_raw = {methods.CODE_ACTION}  # type: ignore[attr-defined]
    selection = {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}
    problem = {
        "range": {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 7}},
        "message": "undefined name 'y'",
        "source": "pyflakes",
    }
    actions = await client.ink(
        methods.CODE_ACTION,
        {"textDocument": {"uri": uri}, "range": selection, "context": {"diagnostics": [problem]}},
    )
    assert [a["title"] for a in actions] == [
        "Ink: fix this problem (undefined name 'y')",
        "Ink: explain this",
        "Ink: ask about this…",
    ]
    fix, explain, ask = actions
    assert fix["kind"] == "quickfix" and fix["diagnostics"][0]["message"] == problem["message"]
    assert fix["command"]["command"] == "ink.ask"
    (argument,) = fix["command"]["arguments"]
    assert argument["uri"] == uri and "undefined name 'y'" in argument["prompt"]
    assert argument["range"] == problem["range"]
    assert explain["command"]["arguments"][0]["range"] == selection
    assert "kind" not in ask
    assert ask["command"]["arguments"] == [{"uri": uri, "range": selection}]
    # at a cursor (no selection) the actions are about the cursor's line
    cursor = {"start": {"line": 1, "character": 3}, "end": {"line": 1, "character": 3}}
    at_cursor = await client.ink(
        methods.CODE_ACTION,
        {"textDocument": {"uri": uri}, "range": cursor, "context": {"diagnostics": []}},
    )
    assert [a["title"] for a in at_cursor] == ["Ink: explain this", "Ink: ask about this…"]
    assert at_cursor[0]["command"]["arguments"][0]["range"] == {
        "start": {"line": 1, "character": 0},
        "end": {"line": 2, "character": 0},
    }


async def test_short_answer_is_a_message(start: Starter, model: FakeModelServer) -> None:
    client = await plugin_less(start)
    model.push(tool("read", {"path": "app.py"}), text("It prints y."))
    uri = client.open("app.py", "print(y)\n")
    started = await execute(client, {"prompt": "what does this do?", "uri": uri})
    assert started["started"] is True and started["sessionId"]
    message = await next_message(client)
    assert (message.type, message.message) == (types.MessageType.Info, "Ink: It prints y.")
    assert "Context: the user is looking at app.py" in str(model.requests[0]["messages"])


async def test_long_answer_opens_a_transcript(
    start: Starter, model: FakeModelServer, tmp_path: Path
) -> None:
    client = await plugin_less(start)
    shown: asyncio.Queue[types.ShowDocumentParams] = asyncio.Queue()

    def show_document(params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        shown.put_nowait(params)
        return types.ShowDocumentResult(success=True)

    # in place of pytest-lsp's default handler, so the test wakes up when the request comes
    client.protocol.fm.features[types.WINDOW_SHOW_DOCUMENT] = show_document

    model.push(text(LONG))
    await execute(client, "explain the module")  # a plain string is the prompt (Helix)
    params = await asyncio.wait_for(shown.get(), WAIT)
    assert params.take_focus is True and params.uri.endswith(".md")
    transcript = Path(params.uri.removeprefix("file://"))
    assert transcript.parent == tmp_path / "state" / "transcripts"
    body = transcript.read_text()
    assert "## You\n\nexplain the module" in body and LONG.strip() in body
    assert client.messages == []  # the document is the answer


async def test_busy_then_cancel(start: Starter, model: FakeModelServer) -> None:
    client = await plugin_less(start)
    model.push(Reply(text="thinking", hang=True))
    await execute(client, "think forever")
    await model_waits(model)
    with pytest.raises(JsonRpcException) as refused:
        await execute(client, "and this too")
    assert refused.value.code == -32002
    cancelled = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=methods.COMMAND_CANCEL)
    )
    assert cancelled == {"cancelled": 1}
    message = await next_message(client)
    assert (message.type, message.message) == (types.MessageType.Warning, "Ink: cancelled")


async def test_bad_arguments_are_refused(start: Starter) -> None:
    client = await plugin_less(start)
    with pytest.raises(JsonRpcException) as bad:
        await execute(client, {"uri": "file:///x.py"})
    assert bad.value.code == -32602 and "give a prompt" in str(bad.value)


async def test_plugin_clients_are_not_offered_the_commands(start: Starter) -> None:
    client = await start(experimental={"ink": {"reviewsApplyEdit": True}})
    caps = client.init_result.capabilities if client.init_result else None
    assert caps is not None
    assert caps.execute_command_provider is None and caps.code_action_provider is None


async def model_waits(model: FakeModelServer) -> None:
    await asyncio.to_thread(model.wait_requests, 1)

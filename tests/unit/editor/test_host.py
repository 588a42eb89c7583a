"""Sessions and turns without a server: stop-reason mapping, busy sessions, the three cancel
paths converging on one cancel, shutdown, prompt context, and the update stream's order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from ink_ls.agent.factory import AgentFactory
from ink_ls.core.config import ModelSettings
from ink_ls.core.messages import AssistantMessage, ToolCall, Usage
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import Tool, ToolContext, ToolParams, ToolRegistry, ToolResult
from ink_ls.editor.client import ClientFeatures
from ink_ls.editor.documents import OpenDocuments, path_to_uri
from ink_ls.editor.host import Host, HostDeps
from ink_ls.editor.settings import InkSettings
from ink_ls.model.base import ModelError, ModelRequest, ReplyDone, StreamItem, TextDelta
from ink_ls.protocol import methods
from ink_ls.protocol.errors import InkErrorCode, InkRequestError
from ink_ls.protocol.models import SessionPromptParams


class Script:
    """A `Model` that replays assistant messages (or raises a ModelError)."""

    def __init__(self, *replies: AssistantMessage | ModelError) -> None:
        self.replies = list(replies)
        self.requests: list[ModelRequest] = []

    async def stream(
        self, request: ModelRequest, signal: CancelSignal
    ) -> AsyncIterator[StreamItem]:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, ModelError):
            raise reply
        if reply.text:
            yield TextDelta(reply.text)
        yield ReplyDone(reply)


class WaitParams(ToolParams):
    pass


class WaitTool(Tool[WaitParams]):
    """Runs until cancelled; `started` is set when it runs."""

    name = "wait"
    description = "waits for a cancel"
    params_model = WaitParams
    concurrency_safe = True

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def execute(
        self, args: WaitParams, signal: CancelSignal, context: ToolContext
    ) -> ToolResult:
        self.started.set()
        await signal.wait()
        return ToolResult("stopped", is_error=True)


class Client:
    def __init__(self) -> None:
        self.notes: list[tuple[str, dict[str, Any]]] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.requests.append((method, params))
        return None

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.notes.append((method, params))

    def updates(self) -> list[dict[str, Any]]:
        return [p["update"] for m, p in self.notes if m == methods.SESSION_UPDATE]

    def progress(self) -> list[dict[str, Any]]:
        return [p["value"] for m, p in self.notes if m == methods.PROGRESS]


def call(name: str, id: str = "c1") -> ToolCall:
    return ToolCall(id=id, name=name, arguments="{}")


def make_host(
    tmp_path: Path,
    model: Script,
    tool: WaitTool | None = None,
    features: ClientFeatures | None = None,
) -> tuple[Host, Client]:
    client = Client()
    tools = ToolRegistry([tool] if tool else [])
    deps = HostDeps(
        factory=AgentFactory(
            make_model=lambda s: model,
            make_tools=lambda cwd, secret: list(tools),
            system_prompt=lambda cwd, tools: "",
            grace_seconds=0.5,
        )
    )
    host = Host(
        client,
        deps,
        cwd=tmp_path,
        documents=OpenDocuments(),
        features=features or ClientFeatures(work_done_progress=True),
        settings=InkSettings(model=ModelSettings(), approval="auto"),
    )
    return host, client


def params(prompt: str = "hi", **kw: Any) -> SessionPromptParams:
    return SessionPromptParams(prompt=prompt, **kw)


async def test_a_turn_ends_with_turn_end_then_progress_end(tmp_path: Path) -> None:
    model = Script(AssistantMessage(text="hello", usage=Usage(input_tokens=3, output_tokens=1)))
    host, client = make_host(tmp_path, model)
    result = await host.prompt(params())
    assert (result.stop_reason, result.text, result.turn_id) == ("end_turn", "hello", "t1")
    assert [u["sessionUpdate"] for u in client.updates()] == [
        "agent_message_chunk",
        "usage_update",
        "turn_end",
    ]
    ((method, created),) = client.requests
    assert method == methods.PROGRESS_CREATE
    assert [v["kind"] for v in client.progress()] == ["begin", "end"]
    assert client.notes[-1][0] == methods.PROGRESS  # end after turn_end
    assert client.notes[-1][1]["token"] == created["token"]


class SlowProgressClient(Client):
    """A client that answers `window/workDoneProgress/create` only when the test says so
    (or refuses it), and notes what it saw meanwhile."""

    def __init__(self, *, refuse: bool = False) -> None:
        super().__init__()
        self.answer = asyncio.Event()
        self.refuse = refuse

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.requests.append((method, params))
        await self.answer.wait()
        if self.refuse:
            raise RuntimeError("no progress here")
        return None


class Gated(Script):
    """A `Script` that tells when the request reached it and lets the test release it."""

    def __init__(self, *replies: AssistantMessage) -> None:
        super().__init__(*replies)
        self.reached = asyncio.Event()
        self.release = asyncio.Event()

    async def stream(
        self, request: ModelRequest, signal: CancelSignal
    ) -> AsyncIterator[StreamItem]:
        self.reached.set()
        await self.release.wait()
        async for item in super().stream(request, signal):
            yield item


@pytest.mark.parametrize("refuse", [False, True])
async def test_the_model_request_does_not_wait_for_the_progress_token(
    tmp_path: Path, refuse: bool
) -> None:
    model = Gated(AssistantMessage(text="hello"))
    host, _ = make_host(tmp_path, model)
    client = SlowProgressClient(refuse=refuse)
    host.client = client
    turn = asyncio.ensure_future(host.prompt(params()))
    await asyncio.wait_for(model.reached.wait(), 10)  # the request went out unanswered
    assert [m for m, _ in client.requests] == [methods.PROGRESS_CREATE]
    assert client.progress() == []  # no progress before the client created the token
    client.answer.set()
    model.release.set()
    result = await asyncio.wait_for(turn, 10)
    assert result.stop_reason == "end_turn"
    if refuse:
        assert client.progress() == []
    else:
        assert [v["kind"] for v in client.progress()] == ["begin", "end"]
        assert client.notes[-1][0] == methods.PROGRESS  # end after turn_end, as before


async def test_a_turn_ends_only_once_its_progress_has_ended(tmp_path: Path) -> None:
    """A client that answers the create only after the model did: begin and end still go out,
    in order, before the prompt's answer."""
    host, _ = make_host(tmp_path, Script(AssistantMessage(text="quick")))
    client = SlowProgressClient()
    host.client = client
    turn = asyncio.ensure_future(host.prompt(params()))
    for _ in range(50):  # let the turn run as far as it can without the client's answer
        await asyncio.sleep(0)
    assert not turn.done()
    client.answer.set()
    await asyncio.wait_for(turn, 10)
    assert [v["kind"] for v in client.progress()] == ["begin", "end"]


async def test_stop_reason_mapping(tmp_path: Path) -> None:
    host, _ = make_host(tmp_path, Script(AssistantMessage(text="cut", stop_reason="max_tokens")))
    assert (await host.prompt(params())).stop_reason == "max_tokens"
    host, client = make_host(tmp_path, Script(ModelError("endpoint down (HTTP 503)")))
    result = await host.prompt(params())
    assert (result.stop_reason, result.error) == ("error", "endpoint down (HTTP 503)")
    assert client.updates()[-2] == {"sessionUpdate": "error", "message": "endpoint down (HTTP 503)"}
    assert client.progress()[-1] == {"kind": "end", "message": "failed: endpoint down (HTTP 503)"}


async def test_no_progress_without_client_support(tmp_path: Path) -> None:
    host, client = make_host(
        tmp_path, Script(AssistantMessage(text="x")), features=ClientFeatures()
    )
    await host.prompt(params())
    assert client.requests == [] and client.progress() == []


@pytest.mark.parametrize("channel", ["session", "request", "token"])
async def test_busy_then_each_cancel_channel(tmp_path: Path, channel: str) -> None:
    tool = WaitTool()
    model = Script(
        AssistantMessage(tool_calls=[call("wait")], stop_reason="tool_use"),
        AssistantMessage(text="after"),
    )
    host, client = make_host(tmp_path, model, tool)
    running = asyncio.ensure_future(host.prompt(params(workDoneToken="tok"), request_id=41))
    await asyncio.wait_for(tool.started.wait(), 5)
    (session_id,) = host.sessions.live
    with pytest.raises(InkRequestError) as info:
        await host.prompt(params(sessionId=session_id))
    assert (info.value.code, info.value.message) == (
        InkErrorCode.SESSION_BUSY,
        f"session busy: {session_id} is already running a turn; cancel it or wait",
    )
    assert host.list_sessions().sessions[0].running is True
    assert host.cancel_request(99) is False and host.cancel_token("other") is False
    if channel == "session":
        host.cancel(session_id)
    elif channel == "request":
        assert host.cancel_request(41) is True
    else:
        assert host.cancel_token("tok") is True
    result = await asyncio.wait_for(running, 5)
    assert result.stop_reason == "cancelled"
    assert client.progress()[-1] == {"kind": "end", "message": "cancelled"}
    assert host.list_sessions().sessions[0].running is False
    model.replies.append(AssistantMessage(text="again"))
    again = await host.prompt(params(sessionId=session_id))
    assert (again.stop_reason, again.turn_id) == ("end_turn", "t2")


async def test_shutdown_cancels_running_turns_and_refuses_new_ones(tmp_path: Path) -> None:
    tool = WaitTool()
    host, _ = make_host(
        tmp_path, Script(AssistantMessage(tool_calls=[call("wait")], stop_reason="tool_use")), tool
    )
    running = asyncio.ensure_future(host.prompt(params()))
    await asyncio.wait_for(tool.started.wait(), 5)
    await host.shutdown(5)
    assert running.done() and running.result().stop_reason == "cancelled"
    with pytest.raises(InkRequestError) as info:
        await host.prompt(params())
    assert (info.value.code, info.value.message) == (
        InkErrorCode.SHUTTING_DOWN,
        "shutting down: no new turns",
    )


async def test_unknown_session_is_refused(tmp_path: Path) -> None:
    host, _ = make_host(tmp_path, Script(AssistantMessage(text="x")))
    with pytest.raises(InkRequestError) as info:
        host.cancel("nope")
    assert (info.value.code, info.value.message) == (
        InkErrorCode.SESSION_NOT_FOUND,
        "session not found: nope",
    )


async def test_prompt_context_uses_the_buffer_and_selection(tmp_path: Path) -> None:
    model = Script(AssistantMessage(text="ok"))
    host, _ = make_host(tmp_path, model)
    path = tmp_path / "src" / "app.py"
    path.parent.mkdir()
    path.write_text("disk\n")
    uri = path_to_uri(path)
    host.documents.did_open(uri, "def f():\n    return 1\n# end\n", 1)
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}
    await host.prompt(
        SessionPromptParams.model_validate(
            {"prompt": "explain", "textDocument": {"uri": uri}, "range": rng}
        )
    )
    (request,) = model.requests
    first = request.messages[0]
    assert first.content[0].text == (  # type: ignore[union-attr]
        "explain\n\nContext: the user is looking at src/app.py (lines 1-2), selected text:\n"
        "```\ndef f():\n    return 1\n\n```"
    )


class ClosingScript(Script):
    """A scripted model that records being closed, as the real client's `aclose` would."""

    def __init__(self, name: str, *replies: AssistantMessage) -> None:
        super().__init__(*replies)
        self.name = name
        self.closed = asyncio.Event()

    async def aclose(self) -> None:
        self.closed.set()


async def test_clients_of_replaced_settings_close_once_no_turn_uses_them(tmp_path: Path) -> None:
    tool = WaitTool()
    made: dict[str, ClosingScript] = {}

    def make_model(settings: ModelSettings) -> ClosingScript:
        name = settings.model
        made[name] = ClosingScript(
            name,
            AssistantMessage(tool_calls=[call("wait")], stop_reason="tool_use"),
            AssistantMessage(text=f"{name} done"),
        )
        return made[name]

    client = Client()
    deps = HostDeps(
        factory=AgentFactory(
            make_model=make_model,
            make_tools=lambda cwd, secret: [tool],
            system_prompt=lambda cwd, tools: "",
            grace_seconds=0.5,
        )
    )
    host = Host(
        client,
        deps,
        cwd=tmp_path,
        documents=OpenDocuments(),
        features=ClientFeatures(),
        settings=InkSettings(model=ModelSettings(model="a"), approval="auto"),
    )
    running = asyncio.ensure_future(host.prompt(params()))
    await asyncio.wait_for(tool.started.wait(), 5)
    # replaced while a turn uses it: kept open until that turn ends
    host.settings = InkSettings(model=ModelSettings(model="b"), approval="auto")
    await asyncio.gather(*host._closing_models)  # the settings change's close pass: skips "a"
    assert not made["a"].closed.is_set()
    (session_id,) = host.sessions.live
    host.cancel(session_id)
    assert (await asyncio.wait_for(running, 5)).stop_reason == "cancelled"
    await asyncio.wait_for(made["a"].closed.wait(), 5)
    # the current settings' client stays open across turns
    tool.started.clear()
    running = asyncio.ensure_future(host.prompt(params()))
    await asyncio.wait_for(tool.started.wait(), 5)
    host.cancel(next(s for s in host.sessions.live if s != session_id))
    await asyncio.wait_for(running, 5)
    assert not made["b"].closed.is_set()
    # replaced while idle: closed at once
    host.settings = InkSettings(model=ModelSettings(model="c"), approval="auto")
    await asyncio.wait_for(made["b"].closed.wait(), 5)
    await host.shutdown(1)

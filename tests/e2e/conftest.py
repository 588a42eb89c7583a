"""End-to-end harness: `python -m ink_ls --stdio` under a pytest-lsp client, a scripted model on
loopback, a real temp workspace and `INK_STATE_DIR` in a temp dir.

Every test that takes `start` runs twice: with the VS Code and the Neovim capability presets
pytest-lsp ships. The client records `ink/session/update`s, keeps its own buffers, and answers
`workspace/applyEdit` / `window/showMessageRequest` with per-test handlers.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features
from pytest_lsp.protocol import LanguageClientProtocol

from ink_ls.editor.documents import path_to_uri
from ink_ls.protocol import methods
from ink_ls.server import RawNotification, RawRequest, RawResponse, ink_converter
from tests.fakes.model_server import FakeModelServer, tool

PRESETS = ("visual_studio_code", "neovim")
REPO = Path(__file__).resolve().parents[2]
SECRET = "sk-test-e2e-secret-4242"
WAIT = 20.0
SERVER_COMMAND = [sys.executable, "-m", "ink_ls", "--stdio"]

_RAW_REQUESTS = frozenset(
    methods.INK_REQUESTS
    + (
        methods.APPLY_EDIT,
        methods.SHOW_MESSAGE_REQUEST,
        methods.DIAGNOSTICS,
        methods.LANGUAGE_FEATURES,
    )
)


class InkClientProtocol(LanguageClientProtocol):
    """The test client's protocol: `ink/*`, applyEdit and showMessageRequest stay plain JSON."""

    extra_raw: set[str] = set()
    """Further methods sent as plain JSON (to send params the LSP types would refuse)."""

    def get_message_type(self, method: str) -> Any:  # type: ignore[override]
        if method in _RAW_REQUESTS or method in self.extra_raw:
            return RawRequest
        if method in (methods.SESSION_UPDATE, methods.DIAGNOSTICS_CHANGED):
            return RawNotification
        return super().get_message_type(method)

    def get_result_type(self, method: str) -> Any:  # type: ignore[override]
        if method in _RAW_REQUESTS or method in self.extra_raw:
            return RawResponse
        return super().get_result_type(method)


Handler = Callable[[dict[str, Any]], Awaitable[Any]]


class InkClient(LanguageClient):
    """A pytest-lsp client that speaks ink/* and behaves like an editor with buffers."""

    def __init__(self) -> None:
        super().__init__(protocol_cls=InkClientProtocol, converter_factory=ink_converter)
        self.updates: list[dict[str, Any]] = []
        self.edit_requests: list[dict[str, Any]] = []
        self.message_requests: list[dict[str, Any]] = []
        self.buffers: dict[str, tuple[str, int]] = {}
        self.preset = ""
        self.workspace = Path()
        self.init_result: types.InitializeResult | None = None
        self.on_apply_edit: Handler = self.accept_edit
        self.on_message_request: Handler = self._no_prompt_expected
        self.on_diagnostics: Handler = self._no_diagnostics
        self.on_language_features: Handler = self._no_language_features
        self._changed = asyncio.Condition()

    # ---- recording ------------------------------------------------------------------------

    async def _record(self, params: dict[str, Any]) -> None:
        async with self._changed:
            self.updates.append(params)
            self._changed.notify_all()

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = WAIT) -> None:
        """Wait until `predicate()` holds (re-checked on every update)."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), timeout)

    async def poke(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def kinds(self, turn: str | None = None) -> list[str]:
        return [
            u["update"]["sessionUpdate"]
            for u in self.updates
            if turn is None or u["turnId"] == turn
        ]

    def tool_updates(self, call_id: str | None = None) -> list[dict[str, Any]]:
        out = []
        for u in self.updates:
            body = u["update"]
            if body["sessionUpdate"] in ("tool_call", "tool_call_update"):
                if call_id is None or body["toolCallId"] == call_id:
                    out.append(body)
        return out

    # ---- requests -------------------------------------------------------------------------

    async def ink(self, method: str, params: dict[str, Any], msg_id: Any = None) -> Any:
        return await self.protocol.send_request_async(method, params, msg_id=msg_id)

    async def prompt(self, prompt: str, **params: Any) -> dict[str, Any]:
        result: dict[str, Any] = await self.ink(
            methods.SESSION_PROMPT, {"prompt": prompt, **params}
        )
        return result

    # ---- buffers ------------------------------------------------------------------------

    def open(self, rel: str, text: str) -> str:
        uri = path_to_uri(self.workspace / rel)
        self.buffers[uri] = (text, 1)
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="plaintext", version=1, text=text
                )
            )
        )
        return uri

    def change(self, rel: str, text: str) -> None:
        uri = path_to_uri(self.workspace / rel)
        version = self.buffers[uri][1] + 1
        self.buffers[uri] = (text, version)
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def open_uri(self, rel: str) -> str:
        return path_to_uri(self.workspace / rel)

    def buffer(self, rel: str) -> str | None:
        entry = self.buffers.get(path_to_uri(self.workspace / rel))
        return entry[0] if entry else None

    # ---- editor behaviour -------------------------------------------------------------------

    async def accept_edit(self, params: dict[str, Any]) -> dict[str, Any]:
        """Apply a whole-document edit: buffers get it (+didChange); VS Code also saves."""
        edit = params["edit"]
        targets: list[tuple[str, str]] = []
        for change in edit.get("documentChanges", []):
            if "edits" in change:
                targets.append((change["textDocument"]["uri"], change["edits"][0]["newText"]))
        for uri, edits in edit.get("changes", {}).items():
            targets.append((uri, edits[0]["newText"]))
        for uri, new_text in targets:
            if uri in self.buffers:
                rel = str(Path(uri.removeprefix("file://")).relative_to(self.workspace))
                self.change(rel, new_text)
            if self.preset == "visual_studio_code" or uri not in self.buffers:
                Path(uri.removeprefix("file://")).write_text(new_text, encoding="utf-8")
        return {"applied": True}

    async def _no_diagnostics(self, params: dict[str, Any]) -> Any:
        raise AssertionError("ink/diagnostics asked of a client that did not announce it")

    async def _no_language_features(self, params: dict[str, Any]) -> Any:
        raise AssertionError("ink/languageFeatures asked of a client that did not announce it")

    async def _no_prompt_expected(self, params: dict[str, Any]) -> Any:
        raise AssertionError(f"unexpected approval prompt: {params['message']}")


def answer(option: str | None) -> Handler:
    """A showMessageRequest handler that picks the action with this optionId (None = dismiss)."""

    async def handler(params: dict[str, Any]) -> Any:
        if option is None:
            return None
        for action in params["actions"]:
            if action.get("optionId", _TITLES.get(action["title"])) == option:
                return action
        raise AssertionError(f"no action {option} in {params['actions']}")

    return handler


_TITLES = {"Allow once": "allow_once", "Always allow": "allow_always", "Reject": "reject_once"}


def make_client() -> InkClient:
    client = InkClient()
    register_lsp_features(client)

    @client.feature(methods.SESSION_UPDATE)
    async def on_update(params: dict[str, Any]) -> None:
        await client._record(params)

    @client.feature(methods.APPLY_EDIT)
    async def on_apply_edit(params: dict[str, Any]) -> Any:
        client.edit_requests.append(params)
        return await client.on_apply_edit(params)

    @client.feature(methods.DIAGNOSTICS)
    async def on_diagnostics(params: dict[str, Any]) -> Any:
        return await client.on_diagnostics(params)

    @client.feature(methods.LANGUAGE_FEATURES)
    async def on_language_features(params: dict[str, Any]) -> Any:
        return await client.on_language_features(params)

    @client.feature(methods.SHOW_MESSAGE_REQUEST)
    async def on_message_request(params: dict[str, Any]) -> Any:
        client.message_requests.append(params)
        await client.poke()
        return await client.on_message_request(params)

    return client


def server_env(state_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INK_", "OPENAI_"))}
    env["INK_STATE_DIR"] = str(state_dir)
    env["PYTHONPATH"] = str(REPO)
    return env


@pytest.fixture(params=PRESETS)
def preset(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def model() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text(
        "# Demo\n\nStart the project with `npm start`.\n", encoding="utf-8"
    )
    return root.resolve()


Starter = Callable[..., Awaitable[InkClient]]


@pytest.fixture
async def start(
    preset: str, model: FakeModelServer, workspace: Path, tmp_path: Path
) -> AsyncIterator[Starter]:
    """`await start(approval="ask", timeout=600, ink={...}, args=(...), env={...})` → an
    initialized client (`args` are added to the server's command line, `env` to its
    environment)."""
    clients: list[InkClient] = []

    async def _start(
        approval: str = "ask",
        timeout: float = 600,
        ink: dict[str, Any] | None = None,
        experimental: dict[str, Any] | None = None,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> InkClient:
        client = make_client()
        client.preset = preset
        client.workspace = workspace
        await client.start_io(
            *SERVER_COMMAND,
            *args,
            env={**server_env(tmp_path / "state"), **(env or {})},
            cwd=str(workspace),
        )
        clients.append(client)
        caps = client_capabilities(preset)
        if experimental is not None:
            caps.experimental = experimental
        elif preset == "visual_studio_code":
            caps.experimental = {"ink": {"reviewsApplyEdit": True}}
        options = (
            ink
            if ink is not None
            else {
                "model": {"baseUrl": model.base_url, "model": "fake-model", "apiKey": SECRET},
                "approval": approval,
                "approvalTimeoutSeconds": timeout,
            }
        )
        client.init_result = await client.initialize_session(
            types.InitializeParams(
                capabilities=caps,
                root_uri=path_to_uri(workspace),
                workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(workspace), name="ws")],
                initialization_options={"ink": options},
            )
        )
        return client

    yield _start
    for client in clients:
        if client._server is not None and client._server.returncode is None:
            await asyncio.wait_for(client.shutdown_session(), WAIT)
        await client.stop()


# ---- helpers shared by the test modules ----------------------------------------------


def tool_results(request: dict[str, Any]) -> list[str]:
    """The `tool` messages' contents of one recorded model request, in order."""
    out = []
    for message in request["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            out.append(content if isinstance(content, str) else str(content))
    return out


def processes_running(marker: str) -> list[int]:
    """Pids whose command line contains `marker`."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().split(") ", 1)[1][0]
        except (OSError, IndexError):
            continue
        if marker in cmdline and state != "Z":
            pids.append(int(entry.name))
    return pids


async def wait_gone(marker: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while processes_running(marker):
        assert loop.time() < deadline, f"{marker} still running"
        await asyncio.sleep(0.02)


async def start_sleeping(
    client: InkClient, model: FakeModelServer, marker: str, msg_id: str | None = None
) -> tuple[asyncio.Future[dict[str, object]], str]:
    """Start a turn running `sleep <marker>`; return the prompt task and the session id."""
    model.push(tool("bash", {"command": f"sleep {marker}"}))
    task = asyncio.ensure_future(
        client.ink(methods.SESSION_PROMPT, {"prompt": "sleep a minute"}, msg_id=msg_id)
    )
    await client.wait_for(lambda: any(u.get("phase") == "running" for u in client.tool_updates()))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not processes_running(marker):
        assert loop.time() < deadline, "sleep never started"
        await asyncio.sleep(0.01)
    return task, str(client.updates[-1]["sessionId"])

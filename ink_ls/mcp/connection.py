"""One MCP server: start it, list its tools, call them, notice it died, start it again.

The SDK's transports and `ClientSession` are anyio context managers that must be entered
and left in one task, so each connection runs in its own task (`_serve`) inside a cancel
scope; stopping cancels that scope and the SDK's shielded shutdown ends the process
(stdin closed, then SIGTERM/SIGKILL to its process group). Calls come from tool tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from typing import IO, Any, Literal

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

from ink_ls import __version__
from ink_ls.core.signal import CancelledError, CancelSignal, WaitTimeoutError, race
from ink_ls.mcp import reaper
from ink_ls.mcp.config import DEFAULT_START_TIMEOUT, ServerConfig
from ink_ls.mcp.stdio import stdio_transport

log = logging.getLogger(__name__)

State = Literal["stopped", "starting", "connected", "failed"]
RETRY_AFTER = 60.0
"""Seconds before a session start tries a server that failed to start again (calls always do)."""
STDERR_TAIL = 600
CALL_TIMEOUT = 600.0
"""Seconds a tool call may take before it is cancelled (a server that never answers)."""
CLIENT_INFO = types.Implementation(name="ink-ls", version=__version__)
ProgressSink = Callable[[float, float | None, str | None], None]


class ServerGoneError(Exception):
    """The server is not running (never started, crashed, or stopped)."""


class CallCancelledError(Exception):
    """The call was cancelled; the server was sent `notifications/cancelled`."""


class CallTimedOutError(Exception):
    """The server did not answer within the call timeout; it was sent `notifications/cancelled`."""


class ServerConnection:
    """A server's life: `start`, `tools`, `call`, `stop`; restarts on the call after a crash."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        secret_env: Iterable[str] = (),
        start_timeout: float = DEFAULT_START_TIMEOUT,
        call_timeout: float = CALL_TIMEOUT,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.config = config
        self.start_timeout = start_timeout
        self.call_timeout = call_timeout
        self.state: State = "stopped"
        self.error: str | None = config.error
        self.tools: list[types.Tool] = []
        self.started_ms: float | None = None
        self._attempted: float | None = None
        self._secret_env = frozenset(secret_env)
        self._on_change = on_change
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._scope: anyio.CancelScope | None = None
        self._lock = asyncio.Lock()
        self._stderr: IO[str] | None = None
        self._refresh: asyncio.Task[None] | None = None

    # ---- life ---------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start (or restart) the server; on failure `state` is `failed` with `error` set."""
        async with self._lock:
            if self.state == "connected":
                return
            await self._stop_task()
            if self.config.error is not None:
                self.state, self.error = "failed", self.config.error
                return
            self.state, self.error = "starting", None
            before = reaper.children()
            began = self._attempted = time.perf_counter()
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._task = asyncio.create_task(self._serve(ready), name=f"mcp:{self.config.name}")
            try:
                await asyncio.wait_for(asyncio.shield(ready), self.start_timeout)
            except TimeoutError:
                await self._stop_task()
                self._fail(f"did not answer within {self.start_timeout:g}s of starting")
            except Exception as exc:
                await self._stop_task()
                cause = _leaf(exc)
                lost = isinstance(cause, MCPError) and _connection_lost(cause)
                self._fail("the server exited before it was ready" if lost else _describe(cause))
            else:
                self.started_ms = (time.perf_counter() - began) * 1000.0
                self.state = "connected"
                reaper.note_started(before)  # killed at exit even if it ignores EOF
            self._on_change()

    def may_retry(self) -> bool:
        """Whether a session start should try again (never tried, or not in `RETRY_AFTER` s)."""
        last = self._attempted
        return last is None or time.perf_counter() - last >= RETRY_AFTER

    def _fail(self, reason: str) -> None:
        tail = self.stderr_tail()
        self.state = "failed"
        self.error = f"{reason}; stderr: {tail}" if tail else reason
        self._session = None  # `tools` stay listed: a call of one starts the server again

    async def _serve(self, ready: asyncio.Future[None]) -> None:
        with anyio.CancelScope() as scope:
            self._scope = scope
            try:
                async with contextlib.AsyncExitStack() as stack:
                    read, write = await stack.enter_async_context(self._transport())
                    session = await stack.enter_async_context(
                        ClientSession(
                            read, write, message_handler=self._on_message, client_info=CLIENT_INFO
                        )
                    )
                    await session.initialize()
                    self.tools = await _list_tools(session)
                    self._session = session
                    ready.set_result(None)
                    await anyio.sleep_forever()
            except Exception as exc:
                if not ready.done():
                    ready.set_exception(exc)
                elif self.state == "connected":
                    self._fail(f"the connection failed: {_describe(exc)}")
                    self._on_change()
        self._session = None
        if not ready.done():
            ready.set_exception(ServerGoneError("stopped while starting"))

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        config = self.config
        if config.url is not None:
            client = create_mcp_http_client(headers=dict(config.headers))
            return _with_client(client, streamable_http_client(config.url, http_client=client))
        env = {k: v for k, v in os.environ.items() if k not in self._secret_env}
        assert config.command is not None
        if self._stderr is not None:
            self._stderr.close()
        # each start gets a fresh file: its tail explains this start's failure, not an older one
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        params = StdioServerParameters(
            command=config.command,
            args=list(config.args),
            env={**env, **config.env},
            cwd=config.cwd,
        )
        return stdio_transport(params, self._stderr, server=config.name)

    async def _stop_task(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        if self._scope is not None:
            self._scope.cancel()
        await asyncio.wait((task,), timeout=10.0)  # the SDK's shutdown is bounded (~6 s)
        if not task.done():
            task.cancel()
        self._scope, self._session = None, None

    async def stop(self) -> None:
        """Stop the server (its process ends with it)."""
        async with self._lock:
            if self._refresh is not None:
                self._refresh.cancel()
            await self._stop_task()
            self.state, self.tools = "stopped", []
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None

    def stderr_tail(self) -> str:
        """The end of what the server wrote on stderr (one line), for error messages."""
        stderr = self._stderr
        if stderr is None:
            return ""
        try:
            stderr.flush()
            size = stderr.seek(0, os.SEEK_END)
            stderr.seek(max(0, size - STDERR_TAIL * 4))
            text = stderr.read()
        except (OSError, ValueError):
            return ""
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return " | ".join(lines[-3:])[-STDERR_TAIL:]

    # ---- notifications ------------------------------------------------------------------------

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            if self._refresh is None or self._refresh.done():
                self._refresh = asyncio.create_task(self._relist())

    async def _relist(self) -> None:
        session = self._session
        if session is None:
            return
        try:
            self.tools = await _list_tools(session)
        except Exception as exc:
            log.warning(
                "MCP server %s: listing tools after a change failed: %s",
                self.config.name,
                _describe(exc),
            )
            return
        self._on_change()

    # ---- calls --------------------------------------------------------------------------------

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        signal: CancelSignal,
        on_progress: ProgressSink | None = None,
    ) -> types.CallToolResult:
        """Call `tool`; restarts a crashed server first. Raises `ServerGoneError` when it
        cannot run, `CallCancelledError` on cancel, `CallTimedOutError` after `call_timeout`
        seconds, the SDK's errors otherwise."""
        if self.state != "connected":
            await self.start()
        session = self._session
        if self.state != "connected" or session is None:
            raise ServerGoneError(self.error or "not running")

        async def report(progress: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                on_progress(progress, total, message)

        try:
            # a cancel cancels the request: the SDK then sends notifications/cancelled
            result = await race(
                session.call_tool(tool, arguments, progress_callback=report),
                signal,
                settle=True,
                timeout=self.call_timeout,
            )
        except CancelledError as exc:
            raise CallCancelledError(str(exc)) from None
        except WaitTimeoutError:
            raise CallTimedOutError(f"no answer within {self.call_timeout:g}s") from None
        except MCPError as exc:
            if self._session is session and _connection_lost(exc):
                self._fail("the server stopped during the call")
                self._on_change()
                await self._stop_task()
                raise ServerGoneError(self.error or "the server stopped") from None
            raise
        refresh = self._refresh
        if refresh is not None and not refresh.done():
            # the call changed the tool list: the next model request must see the new one
            await asyncio.wait((refresh,), timeout=10.0)
        return result


def _connection_lost(exc: MCPError) -> bool:
    return getattr(exc, "code", None) == CONNECTION_CLOSED


async def _list_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(100):  # a server paging forever must not hang the start
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await session.list_tools(params=params)
        tools += result.tools
        cursor = result.next_cursor
        if not cursor:
            break
    return tools


@contextlib.asynccontextmanager
async def _with_client(client: httpx2.AsyncClient, inner: Any) -> Any:
    async with client, inner as streams:
        yield streams


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups from anyio task groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    exc = _leaf(exc)
    if isinstance(exc, FileNotFoundError):
        return f"cannot run the command: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
    text = str(exc) or type(exc).__name__
    return text

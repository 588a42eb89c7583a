"""The stdio transport of an MCP server, with bounded reading: our replacement of the SDK's
`stdio_client`, whose reader re-joins its whole buffer for every chunk (a 100 MB line costs
minutes) and has no size limit.

Lines are cut out of the stdout chunks in linear time. A line over `MAX_MESSAGE` bytes is not
held: its first `LOG_BYTES` go to an output log, and the request it answers (its `id` is read
from the line's head) gets an error `RESULT_TOO_LARGE` naming the log, so the call ends at
once. A line that is not a JSON-RPC message is skipped with one warning (servers that print a
banner on stdout keep working); one that answers a request with a malformed message fails that
request instead of leaving it waiting. The server runs in its own process group and is stopped
like the SDK does it: stdin closed, then SIGTERM and SIGKILL to the group, every wait bounded.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import IO, Any

import anyio
import mcp_types as types
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import StdioServerParameters
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

from ink_ls.core.sanitize import clean_line
from ink_ls.tools.outputs import OutputLog

log = logging.getLogger(__name__)

MAX_MESSAGE = 16 * 1024 * 1024
"""Largest message read from a server (the model sees 50 KB of a result anyway)."""
RESULT_TOO_LARGE = -32099
"""Error code of the synthesized answer to a request whose answer was over `MAX_MESSAGE`."""
BAD_MESSAGE = -32700
EXIT_WAIT = 2.0
_HEAD = 4096
_CHUNK = 256 * 1024
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')

Received = SessionMessage | Exception


@dataclass
class Oversized:
    """A line over the limit: its head (for the id), its size, the log holding its start."""

    head: bytes
    size: int
    log: OutputLog | None
    log_error: str | None = None


class LineSplitter:
    """Complete lines out of chunks; only new bytes are scanned, long lines are spilled."""

    def __init__(self, max_line: int, open_log: Callable[[], OutputLog]) -> None:
        self._max = max_line
        self._open_log = open_log
        self._buf = bytearray()
        self._spill: Oversized | None = None

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        """The lines (without `\\n`) that `chunk` completes."""
        out: list[bytes | Oversized] = []
        start = 0
        while start <= len(chunk):
            newline = chunk.find(b"\n", start)
            end = len(chunk) if newline < 0 else newline
            piece = chunk[start:end]
            if self._spill is None and len(self._buf) + len(piece) > self._max:
                self._begin_spill()
            if self._spill is not None:
                self._add_spill(piece)
            else:
                self._buf += piece
            if newline < 0:
                return out
            if self._spill is not None:
                spilled, self._spill = self._spill, None
                if spilled.log is not None:
                    spilled.log.close()
                out.append(spilled)
            else:
                out.append(bytes(self._buf))
                self._buf.clear()
            start = newline + 1
        return out

    def _begin_spill(self) -> None:
        try:
            spill_log: OutputLog | None = self._open_log()
            error = None
        except OSError as exc:
            spill_log, error = None, exc.strerror or str(exc)
        self._spill = Oversized(b"", 0, spill_log, error)
        held = bytes(self._buf)
        self._buf.clear()
        self._add_spill(held)

    def _add_spill(self, data: bytes) -> None:
        spill = self._spill
        assert spill is not None
        if len(spill.head) < _HEAD:
            spill.head += data[: _HEAD - len(spill.head)]
        spill.size += len(data)
        if spill.log is not None:
            try:
                spill.log.write(data)
            except OSError as exc:
                spill.log.discard()
                spill.log, spill.log_error = None, exc.strerror or str(exc)


def request_id(head: bytes) -> int | str | None:
    """The `id` of a JSON-RPC answer, read from the start of its text (None when not there)."""
    found = _ID.search(head)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, int | str) else None


def _error(msg_id: int | str, code: int, message: str, data: Any = None) -> SessionMessage:
    error = types.ErrorData(code=code, message=message, data=data)
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=msg_id, error=error))


def to_message(item: bytes | Oversized, server: str) -> SessionMessage | None:
    """What the session receives for one line (None: nothing, the line was skipped)."""
    if isinstance(item, Oversized):
        msg_id = request_id(item.head)
        mib = MAX_MESSAGE // (1024 * 1024)
        log.warning(
            "MCP server %s sent a message of %d bytes (limit %d MiB)", server, item.size, mib
        )
        if msg_id is None:
            return None
        saved = item.log
        data = {
            "bytes": item.size,
            "limit": MAX_MESSAGE,
            "savedTo": saved.path if saved is not None else None,
            "savedBytes": saved.saved if saved is not None else 0,
            "saveError": item.log_error,
        }
        return _error(msg_id, RESULT_TOO_LARGE, f"the answer is over {mib} MiB", data)
    line = item.strip()
    if not line:
        return None
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError:
        pass
    shown = clean_line(line[:120].decode("utf-8", "replace"))
    log.warning("MCP server %s: skipped a stdout line that is not JSON-RPC: %s", server, shown)
    try:
        parsed = json.loads(line)
    except (ValueError, RecursionError):
        return None
    msg_id = parsed.get("id") if isinstance(parsed, dict) else None
    if isinstance(msg_id, int | str) and not isinstance(msg_id, bool) and "method" not in parsed:
        return _error(msg_id, BAD_MESSAGE, "the server's answer is not a valid JSON-RPC message")
    return None


@contextlib.asynccontextmanager
async def stdio_transport(
    params: StdioServerParameters,
    errlog: IO[str],
    *,
    server: str,
    max_message: int = MAX_MESSAGE,
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[Received], MemoryObjectSendStream[Any]]]:
    """Start the server and yield the session's (read, write) streams; stop it on exit."""
    process = await anyio.open_process(
        [params.command, *params.args],
        env=params.env,
        cwd=params.cwd,
        stderr=errlog,
        start_new_session=True,
    )
    read_send, read_recv = anyio.create_memory_object_stream[Received](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)

    async def pump_out() -> None:
        assert process.stdout is not None
        splitter = LineSplitter(max_message, OutputLog)
        delivering = True
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async with read_send:
                while True:
                    try:
                        chunk = await process.stdout.receive(_CHUNK)
                    except (anyio.EndOfStream, anyio.ClosedResourceError, OSError):
                        return
                    for item in splitter.feed(chunk):
                        message = to_message(item, server) if delivering else None
                        if message is None:
                            continue
                        try:
                            await read_send.send(message)
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            delivering = False  # the session is gone; keep the pipe drained

    async def pump_in() -> None:
        assert process.stdin is not None
        try:
            async with write_recv:
                async for outgoing in write_recv:
                    text = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((text + "\n").encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_send.aclose()  # the session sees the end instead of waiting forever

    async with anyio.create_task_group() as tg:
        tg.start_soon(pump_out)
        tg.start_soon(pump_in)
        try:
            yield read_recv, write_send
        finally:
            with anyio.CancelScope(shield=True):
                await write_send.aclose()
                await _stop(process)
                for stream in (read_recv, read_send, write_recv):
                    await stream.aclose()
            tg.cancel_scope.cancel()


async def _exited(process: Process, timeout: float) -> bool:
    # polling: `wait()` would also wait for the pipes, which a surviving child can hold open
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


async def _stop(process: Process) -> None:
    """Close stdin, give the server `EXIT_WAIT` s, then signal its whole group."""
    if process.stdin is not None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    if not await _exited(process, EXIT_WAIT):
        await terminate_posix_process_tree(process, EXIT_WAIT)
        if not await _exited(process, EXIT_WAIT):
            log.warning("MCP server process %d survived SIGKILL; abandoned", process.pid)
    with anyio.move_on_after(EXIT_WAIT):
        await process.aclose()

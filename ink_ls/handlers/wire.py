"""Serving the wire strictly: pygls' server with our frame reader and message checks.

pygls' own loop stays alive but deaf after one bad frame and lets malformed messages through
to its converter. `StrictWire` reads frames with `protocol.framing.FrameReader` (stdio and
TCP), answers bad frames and malformed messages with plain JSON-RPC errors, asks the protocol
whether a well-formed request must be refused (`refusal`), and hands the rest to pygls.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, cast

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from ink_ls.protocol.framing import PARSE_ERROR, FrameError, FrameReader, WireError, decode

log = logging.getLogger(__name__)

ReadChunk = Callable[[], Awaitable[bytes]]
READ_SIZE = 65536


class WireChecks(Protocol):
    """What the protocol adds for the strict wire (`server.InkProtocol`)."""

    def refusal(self, data: dict[str, Any]) -> WireError | None: ...

    def send_wire_error(self, error: WireError) -> None: ...

    def structure_message(self, data: dict[str, Any]) -> Any: ...

    def handle_message(self, message: Any) -> None: ...


class StrictWire(LanguageServer):
    """A `LanguageServer` whose stdio and TCP loops never go deaf after a bad frame.

    It runs its own loops, so it keeps its own stop event and TCP server (pygls' are private)
    and stops them in `shutdown`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stopping = threading.Event()
        self._tcp: asyncio.Server | None = None

    def _checks(self) -> WireChecks:
        return cast(WireChecks, self.protocol)

    def shutdown(self) -> None:
        """Stop serving: end the read loop, close the TCP server, then pygls' own parts."""
        self._stopping.set()
        if self._tcp is not None:
            self._tcp.close()
        super().shutdown()  # type: ignore[no-untyped-call]

    def start_io(self, stdin: Any | None = None, stdout: Any | None = None) -> None:
        """Serve on stdin/stdout until end of input or `exit`."""
        source = stdin or sys.stdin.buffer
        read = getattr(source, "read1", source.read)
        self._stopping.clear()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

        async def serve() -> None:
            loop = asyncio.get_running_loop()
            await self.serve_frames(lambda: loop.run_in_executor(self.thread_pool, read, READ_SIZE))

        try:
            asyncio.run(serve())
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve TCP clients on `host:port`, one connection at a time."""
        self._stopping.clear()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)
            await self.serve_frames(lambda: reader.read(READ_SIZE))
            self.shutdown()

        async def main() -> None:
            self._tcp = await asyncio.start_server(connection, host, port)
            async with self._tcp:
                await self._tcp.serve_forever()

        try:
            asyncio.run(main())
        except asyncio.CancelledError:
            pass

    async def serve_frames(self, read_chunk: ReadChunk) -> None:
        """Read and handle messages until end of input (or `exit`)."""
        frames = FrameReader(read_chunk)
        while not self._stopping.is_set():
            frame = await frames.next()
            if frame is None:
                break
            if isinstance(frame, FrameError):
                log.warning("bad frame: %s", frame.reason)
                self._checks().send_wire_error(
                    WireError(PARSE_ERROR, f"parse error: {frame.reason}")
                )
                continue
            self.receive(frame)

    def receive(self, body: bytes) -> None:
        """Check one message body and hand it to the protocol, or answer it with an error."""
        checks = self._checks()
        data = decode(body)
        if isinstance(data, WireError):
            log.warning("refused message: %s", data.message)
            checks.send_wire_error(data)
            return
        if "method" in data and "params" not in data:
            # JSON-RPC lets a request leave its params out; pygls' converter needs the key
            data = {**data, "params": None}
        refused = checks.refusal(data)
        if refused is not None:
            log.warning("refused request: %s", refused.message)
            checks.send_wire_error(refused)
            return
        try:
            checks.handle_message(checks.structure_message(data))
        except Exception as exc:  # as pygls' own loop: log, report, keep serving
            log.exception("unable to handle a message")
            self.report_server_error(exc, JsonRpcException)

"""The two pygls internals ink-ls needs because pygls 2.1 has no public way to do the job.

Everything else goes through pygls' public API (`notify`, `send_request`, `handle_message`,
`structure_message`, `get_message_type`, `lsp_method` overrides, `shutdown`). Nothing outside
this module touches a pygls `_member`; each use below says why it is needed.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol


def send_message(protocol: JsonRPCProtocol, message: dict[str, Any]) -> None:
    """Write one JSON-RPC message as it is (an error response with an `id` pygls never saw).

    Why `_send_data`: pygls' public senders build requests and notifications only. The error
    answering a bad frame, a refused request or params that do not fit their LSP type is for a
    message pygls did not take in, so no public call can answer it; `_send_data` is the writer
    every pygls message goes through (framing, async writers, a broken pipe reported).
    """
    protocol._send_data(message)


class TracebackFreeResponses(LanguageServerProtocol):
    """A protocol whose error responses never carry the server's traceback.

    Why `_send_response`: an exception escaping a handler reaches the client as -32603 with a
    traceback in `data` (pygls' `JsonRpcInternalError.of`), and pygls offers no hook for the
    error it sends; `_send_response` is the one place every response passes through.
    """

    def _send_response(
        self, msg_id: Any, result: Any | None = None, error: Any | None = None
    ) -> None:
        if isinstance(error, types.ResponseError) and isinstance(error.data, dict):
            if "traceback" in error.data:
                error = types.ResponseError(code=error.code, message=error.message)
        super()._send_response(msg_id, result, error)

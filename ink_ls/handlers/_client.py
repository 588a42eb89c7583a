"""The `EditorClient` over a pygls protocol: raw JSON requests and notifications."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from pygls.protocol import JsonRPCProtocol

from ink_ls.protocol import lsp
from ink_ls.protocol.methods import CANCEL_REQUEST


class PyglsClient:
    """Sends raw JSON payloads through the server's protocol (types come from `InkProtocol`)."""

    def __init__(self, protocol: JsonRPCProtocol) -> None:
        self._protocol = protocol

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request and await its result.

        When the wait is abandoned (the turn was cancelled, the approval timed out) the
        editor is told with `$/cancelRequest`, so it can close a prompt nobody awaits any
        more; pygls itself would only forget the future.
        """
        msg_id = str(uuid.uuid4())
        try:
            return await self._protocol.send_request_async(method, params, msg_id=msg_id)
        except asyncio.CancelledError:
            if self._protocol._request_futures.pop(msg_id, None) is not None:
                self.notify(CANCEL_REQUEST, lsp.cancel_request_params(msg_id))
            raise

    def notify(self, method: str, params: dict[str, Any]) -> None:
        # a plain dict goes straight to JSON: no attrs round trip for the hot update stream
        self._protocol._send_data({"jsonrpc": "2.0", "method": method, "params": params})

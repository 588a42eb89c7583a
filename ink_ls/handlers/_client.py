"""The `EditorClient` over a pygls protocol: raw JSON requests and notifications."""

from __future__ import annotations

from typing import Any

from pygls.protocol import JsonRPCProtocol


class PyglsClient:
    """Sends raw JSON payloads through the server's protocol (types come from `InkProtocol`)."""

    def __init__(self, protocol: JsonRPCProtocol) -> None:
        self._protocol = protocol

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        return await self._protocol.send_request_async(method, params)

    def notify(self, method: str, params: dict[str, Any]) -> None:
        # a plain dict goes straight to JSON: no attrs round trip for the hot update stream
        self._protocol._send_data({"jsonrpc": "2.0", "method": method, "params": params})

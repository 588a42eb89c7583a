"""The `EditorClient` over a pygls protocol: raw JSON requests and notifications."""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol

from ink_ls.protocol.methods import CANCEL_REQUEST


def _retrieve(answer: asyncio.Future[Any]) -> None:
    # an answer nobody awaits any more (its wait was abandoned) must not log as unretrieved
    if not answer.cancelled():
        answer.exception()


class PyglsClient:
    """Sends raw JSON payloads through the server's protocol (types come from `InkProtocol`)."""

    def __init__(self, protocol: JsonRPCProtocol) -> None:
        self._protocol = protocol

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request and await its result.

        When the wait is abandoned (the turn was cancelled, the approval timed out) the
        editor is told with `$/cancelRequest`, so it can close a prompt nobody awaits any
        more; pygls keeps the request open until the editor answers it.
        """
        msg_id = str(uuid.uuid4())
        sent: Future[Any] = self._protocol.send_request(method, params, msg_id=msg_id)
        answer = asyncio.wrap_future(sent)
        answer.add_done_callback(_retrieve)
        try:
            # shielded: a late answer still lands in pygls' future instead of a cancelled one
            return await asyncio.shield(answer)
        except asyncio.CancelledError:
            if not sent.done():
                self._protocol.notify(CANCEL_REQUEST, types.CancelParams(id=msg_id))
            raise

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._protocol.notify(method, params)

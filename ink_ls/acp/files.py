"""Files through the ACP client: reads ask `fs/read_text_file` (the editor's unsaved buffers are
seen), changes are approved with `session/request_permission` (the diff shown) and written with
`fs/write_text_file` when the client offers it, else to disk.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol

from acp import RequestError
from acp.schema import ReadTextFileResponse, WriteTextFileResponse

from ink_ls.agent.approval import Choice
from ink_ls.agent.writes import ProposedChange
from ink_ls.core.fileio import write_in_workspace
from ink_ls.core.signal import CancelSignal

log = logging.getLogger(__name__)

_BINARY_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".pdf"})


class FsClient(Protocol):
    """The part of the SDK's client connection these classes use."""

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None
    ) -> ReadTextFileResponse: ...

    async def write_text_file(
        self, session_id: str, path: str, content: str
    ) -> WriteTextFileResponse | None: ...


def _looks_binary(path: Path) -> bool:
    if path.suffix.lower() in _BINARY_SUFFIXES:
        return True
    try:
        with open(path, "rb") as fh:
            return b"\0" in fh.read(8192)
    except OSError:
        return False


class ClientFiles:
    """A `FileView` that reads through the client, so the editor's unsaved text is what the
    model sees. Files not on disk, binary files and files the client cannot read fall back to
    the disk (whose read gives the model the precise error)."""

    def __init__(self, client: FsClient, session_id: str) -> None:
        self._client = client
        self._session_id = session_id

    def open_document(self, path: Path) -> str | None:
        return None  # every read goes through `read_document`

    async def read_document(self, path: Path) -> str | None:
        if not path.is_file() or _looks_binary(path):
            return None  # the disk read reports a missing file, a directory, a binary
        try:
            response = await self._client.read_text_file(self._session_id, str(path))
        except RequestError as exc:
            log.info("client could not read %s (%s); reading the disk", path, exc)
            return None
        return response.content


AskChange = Callable[[Sequence[ProposedChange]], Awaitable[Choice | None]]
"""The files of one change (a rename: several, one decision) → the user's choice (None:
dismissed)."""


class ClientChanges:
    """The ACP `ChangeChannel`: a change is asked about with `session/request_permission`
    (the diff shown) and written with the client's `fs/write_text_file` when it offers it,
    else by the one atomic, link-safe writer (`core.fileio`), kept inside the workspace."""

    reviews_on_apply = False

    def __init__(self, ask: AskChange, client: FsClient | None, session_id: str, cwd: Path) -> None:
        self._cwd = cwd
        self._ask = ask
        self._client = client
        self._session_id = session_id

    async def review(self, change: ProposedChange, signal: CancelSignal) -> Choice | None:
        return await self._ask(change.all_files)

    async def apply(self, change: ProposedChange, *, approved: bool, signal: CancelSignal) -> None:
        signal.raise_if_cancelled()
        if self._client is None:
            write_in_workspace(change.path, change.new_text, self._cwd)
            return
        try:
            await self._client.write_text_file(self._session_id, str(change.path), change.new_text)
        except RequestError as exc:
            raise OSError(f"the editor could not write the file: {exc}") from None

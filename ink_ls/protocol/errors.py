"""JSON-RPC error codes of ink-ls: the standard ones we use and one enum of app codes.

Handlers raise `InkRequestError`; the server turns it into a JSON-RPC error (never a traceback).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
PARSE_ERROR = -32700


class InkErrorCode(IntEnum):
    """Application error codes (range -32099..-32000), documented in protocol.md."""

    SESSION_NOT_FOUND = -32001
    SESSION_BUSY = -32002
    SHUTTING_DOWN = -32004
    COMPACTION_FAILED = -32005
    REWIND_FAILED = -32006
    """A rewind that cannot be done (no such turn, pruned checkpoints, a store failure)."""
    REWIND_CANCELLED = -32007
    """The user chose not to rewind over their own changes: nothing changed."""


class InkRequestError(Exception):
    """A refusal or invalid request, sent to the client as a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = int(code)
        self.message = message
        self.data = data


def session_not_found(session_id: str) -> InkRequestError:
    return InkRequestError(InkErrorCode.SESSION_NOT_FOUND, f"session not found: {session_id}")


def session_busy(session_id: str) -> InkRequestError:
    return InkRequestError(
        InkErrorCode.SESSION_BUSY,
        f"session busy: {session_id} is already running a turn; cancel it or wait",
    )

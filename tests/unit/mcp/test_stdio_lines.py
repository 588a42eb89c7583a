"""The MCP stdio reader's line splitting: linear, capped, and what each line becomes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import mcp_types as types
import pytest

from ink_ls.mcp.stdio import (
    BAD_MESSAGE,
    RESULT_TOO_LARGE,
    LineSplitter,
    Oversized,
    request_id,
    to_message,
)
from ink_ls.tools.outputs import LOG_BYTES, OutputLog


def test_lines_across_chunks() -> None:
    splitter = LineSplitter(100, OutputLog)
    assert splitter.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert splitter.feed(b":2}") == []
    assert splitter.feed(b"\n\n{}\n") == [b'{"b":2}', b"", b"{}"]


def test_a_line_over_the_cap_is_spilled_not_held() -> None:
    splitter = LineSplitter(1000, OutputLog)
    head = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"'
    chunk = b"x" * 65536
    assert splitter.feed(head) == []
    began = time.perf_counter()
    for _ in range(12 * 16):  # 12 MiB, in 64 KiB chunks
        assert splitter.feed(chunk) == []
    [line, after] = splitter.feed(b'"}]}}\n{"jsonrpc":"2.0","id":8,"result":{}}\n')
    assert time.perf_counter() - began < 5  # linear: no re-joining of a growing buffer
    assert isinstance(line, Oversized) and after == b'{"jsonrpc":"2.0","id":8,"result":{}}'
    assert line.size == len(head) + 12 * 16 * 65536 + 5
    assert line.log is not None and line.log.saved == LOG_BYTES
    assert Path(line.log.path).stat().st_size == LOG_BYTES
    message = to_message(line, "h")
    assert message is not None and isinstance(message.message, types.JSONRPCError)
    assert message.message.id == 7 and message.message.error.code == RESULT_TOO_LARGE
    assert message.message.error.data["savedTo"] == line.log.path


@pytest.mark.parametrize(
    ("head", "found"),
    [
        (b'{"jsonrpc":"2.0","id":12,"result"', 12),
        (b'{"id" : "abc\\"d", "result"', 'abc"d'),
        (b'{"jsonrpc":"2.0","result":{"text":"xx', None),
        (b'{"id":true}', None),
    ],
)
def test_request_id(head: bytes, found: object) -> None:
    assert request_id(head) == found


def test_junk_is_skipped_and_a_broken_answer_fails_its_request() -> None:
    assert to_message(b"Server starting on stdio...", "h") is None
    assert to_message(b"   ", "h") is None
    broken = to_message(json.dumps({"jsonrpc": "2.0", "id": 3, "result": 5}).encode(), "h")
    assert broken is not None and isinstance(broken.message, types.JSONRPCError)
    assert broken.message.id == 3 and broken.message.error.code == BAD_MESSAGE
    good = to_message(b'{"jsonrpc":"2.0","id":4,"result":{}}', "h")
    assert good is not None and isinstance(good.message, types.JSONRPCResponse)

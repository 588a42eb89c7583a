"""`FrameReader` on chunked input: frames split anywhere, bad frames skipped, EOF clean."""

from __future__ import annotations

import json

from ink_ls.protocol.framing import FrameError, FrameReader, WireError, decode


def framed(obj: object) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\nContent-Type: application/json\r\n\r\n" % len(body) + body


async def collect(data: bytes, size: int) -> list[bytes | FrameError]:
    chunks = [data[i : i + size] for i in range(0, len(data), size)]

    async def read() -> bytes:
        return chunks.pop(0) if chunks else b""

    reader = FrameReader(read, stall=0.05)
    out: list[bytes | FrameError] = []
    while (item := await reader.next()) is not None:
        out.append(item)
    return out


async def test_frames_split_at_every_byte_are_whole() -> None:
    data = framed({"a": 1}) + b"\r\n" + framed({"b": "é"})
    for size in (1, 2, 7, 1000):
        assert await collect(data, size) == [b'{"a": 1}', json.dumps({"b": "é"}).encode()]


async def test_garbage_between_frames_is_one_error_then_resync() -> None:
    data = framed({"a": 1}) + b"garbage garbage garbage" + framed({"b": 2})
    for size in (1, 5, 1000):
        assert await collect(data, size) == [
            b'{"a": 1}',
            FrameError(
                "bytes outside a message were skipped (no Content-Length header before them)"
            ),
            b'{"b": 2}',
        ]


async def test_missing_length_skips_its_body_silently_after_the_error() -> None:
    data = b"Content-Type: x\r\n\r\n" + b'{"lost": true}' + framed({"b": 2})
    assert await collect(data, 3) == [
        FrameError("the message has no Content-Length header"),
        b'{"b": 2}',
    ]


def test_decode_answers_with_the_request_id_when_it_is_valid() -> None:
    assert decode(b'{"id": "x", "method": "m"}') == WireError(
        -32600, 'invalid request: "jsonrpc" must be "2.0"', "x"
    )
    assert decode(b'{"jsonrpc": "2.0", "id": null, "result": 1}') == {
        "jsonrpc": "2.0",
        "id": None,
        "result": 1,
    }

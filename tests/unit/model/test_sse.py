"""The SSE decoder on its own: line endings, split chunks, multi-line data, comments."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ink_ls.model.sse import SSEDecoder, SSEEvent


def decode(*chunks: bytes) -> list[SSEEvent]:
    d = SSEDecoder()
    out: list[SSEEvent] = []
    for c in chunks:
        out += d.feed(c)
    return out + d.close()


def test_events_are_split_on_blank_lines_with_any_line_ending() -> None:
    body = b'data: {"a":1}\n\ndata: two\r\n\r\ndata: three\r\rdata: [DONE]\n\n'
    assert [e.data for e in decode(body)] == ['{"a":1}', "two", "three", "[DONE]"]


def test_multi_line_data_comments_and_event_names() -> None:
    body = b": keep-alive\n\nevent: error\ndata: line one\ndata:line two\nid: 7\n\n"
    assert decode(body) == [SSEEvent("error", "line one\nline two")]


def test_utf8_and_crlf_split_across_chunks() -> None:
    raw = "data: héllo ✓\r\n\r\n".encode()
    cut = raw.index("✓".encode()) + 1  # inside the three bytes of the check mark
    crlf = raw.index(b"\r")
    assert decode(raw[:cut], raw[cut : crlf + 1], raw[crlf + 1 :]) == [
        SSEEvent("message", "héllo ✓")
    ]


def test_a_cr_lf_split_by_a_lone_lf_chunk() -> None:
    got = decode(b"data: a\r", b"", b"\n", b"\n", b"data: b\n\n")
    assert got == [SSEEvent("message", "a"), SSEEvent("message", "b")]


def test_a_trailing_event_without_its_blank_line_is_kept() -> None:
    assert [e.data for e in decode(b"data: a\n\ndata: [DONE]")] == ["a", "[DONE]"]


def test_nothing_is_emitted_before_the_blank_line() -> None:
    d = SSEDecoder()
    assert d.feed(b"data: par") == []
    assert d.feed(b"tial\n") == []
    assert d.feed(b"\n") == [SSEEvent("message", "partial")]


LINE_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=20)


@given(st.lists(LINE_TEXT, max_size=6), st.data())
def test_any_chunking_gives_the_same_events(payloads: list[str], data: st.DataObject) -> None:
    body = "".join(f"data: {p}\r\n\r\n" for p in payloads).encode()
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=8)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    assert [e.data for e in decode(*pieces)] == payloads

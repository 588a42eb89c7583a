"""The file tools' helpers: the chunked window scan, UTF-8 cuts, paths, diffs, closest region."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ink_ls.tools import _truncate
from ink_ls.tools._paths import real, relative_for_display, resolve, shell_quote
from ink_ls.tools._truncate import (
    ScanCancelledError,
    cut_utf8,
    format_size,
    head_lines,
    scan_window,
)
from ink_ls.tools.diffs import closest_region, numbered, numbered_diff


def reference(data: bytes, offset: int, max_lines: int, max_bytes: int) -> tuple[object, ...]:
    """The obvious in-memory version of `scan_window`."""
    lines = data.split(b"\n")
    lines = [line + b"\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    rest = lines[offset - 1 :]
    if rest and len(rest[0]) > max_bytes:
        return ("long", len(rest[0].rstrip(b"\n")))
    kept, cut = b"", None
    taken = 0
    for line in rest:
        if taken == max_lines:
            cut = "lines"
            break
        if len(kept) + len(line) > max_bytes:
            cut = "bytes"
            break
        kept += line
        taken += 1
    return (kept, taken, len(lines), cut)


@pytest.mark.parametrize("chunk", [1, 2, 7, 1 << 20])
@settings(max_examples=150, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b"bc\n", b"\n", b"\xc3\xa9", b"xyz" * 5])).map(b"".join),
    offset=st.integers(1, 14),
    max_lines=st.integers(1, 6),
    max_bytes=st.integers(1, 24),
)
def test_scan_window_matches_the_in_memory_reference(
    chunk: int, data: bytes, offset: int, max_lines: int, max_bytes: int
) -> None:
    old = _truncate.CHUNK
    _truncate.CHUNK = chunk  # the chunk boundary may fall anywhere, even inside a line
    try:
        w = scan_window(io.BytesIO(data), offset=offset, max_lines=max_lines, max_bytes=max_bytes)
    finally:
        _truncate.CHUNK = old
    got = ("long", w.long_line) if w.long_line is not None else (w.data, w.count, w.total, w.cut_by)
    assert got == reference(data, offset, max_lines, max_bytes)


def test_scan_checks_cancel_between_chunks() -> None:
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(ScanCancelledError):
        scan_window(io.BytesIO(b"x\n" * (3 << 20)), offset=1, max_lines=5, cancelled=cancelled)
    assert len(calls) == 3


@pytest.mark.parametrize("char", ["a", "é", "€", "😀"])
def test_cut_utf8_never_splits_a_character(char: str) -> None:
    data = (char * 20).encode()
    for limit in range(len(data) + 2):
        cut = cut_utf8(data, limit)
        assert len(cut) <= limit
        assert cut.decode() == char * (len(cut) // len(char.encode()))
        assert min(limit, len(data)) - len(cut) < len(char.encode())


def test_head_lines_and_sizes() -> None:
    assert head_lines(["ab", "cd", "ef"], max_lines=2).text == "ab\ncd"
    cut = head_lines(["ab", "cd", "ef"], max_lines=5, max_bytes=5)
    assert (cut.text, cut.cut_by, cut.consumed) == ("ab\ncd", "bytes", 2)
    assert head_lines(["ab"], max_lines=1).cut_by is None
    assert [format_size(n) for n in (512, 51_200, 80_000, 5 << 20)] == [
        "512B",
        "50KB",
        "78.1KB",
        "5MB",
    ]


def test_resolve_and_real(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "l").symlink_to(tmp_path)
    assert resolve(" a/../b.txt ", tmp_path) == tmp_path / "b.txt"
    assert resolve("/etc/hosts", tmp_path) == Path("/etc/hosts")
    assert resolve("~", tmp_path) == Path.home()
    assert real("t/l/x", tmp_path) == tmp_path.resolve() / "x"
    assert relative_for_display(tmp_path / "a" / "b", tmp_path) == "a/b"
    assert relative_for_display(tmp_path, tmp_path) == "."
    assert relative_for_display(Path("/elsewhere"), tmp_path) == "/elsewhere"


@pytest.mark.parametrize("name", ["plain", "with space", "it's", '"dq"', "-dash", "$(x)`y`\\"])
def test_shell_quote_round_trips_through_bash(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text("content\n")
    out = subprocess.run(
        ["/bin/bash", "-c", f"cat {shell_quote(name)}"],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    assert out.stdout == b"content\n"


def test_numbered_diff() -> None:
    old = "".join(f"{i}\n" for i in range(1, 13))
    new = old.replace("6\n", "six\n").replace("12\n", "12\n13\n")
    assert numbered_diff(old, new, path="p") == "\n".join(
        [
            "--- p",
            "+++ p",
            "@@ -3,10 +3,11 @@",
            "  3 3",
            "  4 4",
            "  5 5",
            "- 6 6",
            "+ 6 six",
            "  7 7",
            "  8 8",
            "  9 9",
            " 10 10",
            " 11 11",
            " 12 12",
            "+13 13",
        ]
    )


def test_closest_region() -> None:
    text = "a = 1\n\ndef f(x):\n    return x + 1\n\nprint(f(2))\n"
    region = closest_region(text, "def f(x) :\n  return x+1")
    assert region is not None and (region.first, region.last) == (3, 4)
    assert numbered(text, 3, 4) == "3\tdef f(x):\n4\t    return x + 1"
    # No line shares its stripped text: the most similar single line anchors the search.
    region = closest_region(text, "prnt(f(2)")
    assert region is not None and (region.first, region.last) == (6, 6)
    assert closest_region(text, "completely different") is None

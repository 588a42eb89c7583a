"""Output capture of one stream: chunk splits, totals vs tail, preview boundaries, log layout.

Fed directly (exact chunk boundaries), and once through a real process that writes byte by byte.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ink_ls.core.signal import NEVER
from ink_ls.core.tool import ToolContext
from ink_ls.tools import _process
from ink_ls.tools._output import (
    MAX_BYTES,
    MAX_LINES,
    TAIL_BYTES,
    StreamCapture,
    format_output,
    write_log,
)
from ink_ls.tools._procfs import ProcInfo
from ink_ls.tools.bash import BashParams, BashTool

TEXT = "héllo wörld — ünïcødé 日本語 😀 ok\n" * 3  # 1-, 2-, 3- and 4-byte characters


def fed(data: bytes, size: int, name: str = "stdout") -> StreamCapture:
    capture = StreamCapture(name)
    for i in range(0, len(data), size):
        capture.feed(data[i : i + size])
    return capture


@pytest.mark.parametrize("size", [1, 2, 7])
def test_utf8_split_into_small_chunks_decodes_right(size: int) -> None:
    capture = fed(TEXT.encode(), size)
    assert capture.preview().text == TEXT.rstrip("\n")
    assert (capture.total_bytes, capture.total_lines) == (len(TEXT.encode()), 3)


@given(st.text(min_size=1, max_size=300), st.integers(min_value=1, max_value=9))
def test_any_text_any_split_roundtrips(text: str, size: int) -> None:
    data = text.encode()
    preview = fed(data, size).preview()
    if preview.cut_by is None:
        assert preview.text == (text[:-1] if text.endswith("\n") else text)


@pytest.mark.parametrize("size", [1, 2, 7])
def test_cut_start_never_splits_a_character(size: int) -> None:
    data = "€".encode() * 20000  # one 60,000-byte line of 3-byte characters
    preview = fed(data, size).preview()
    assert preview.text == "€" * (MAX_BYTES // 3)
    assert (preview.cut_by, preview.partial_line) == ("bytes", True)


def test_cut_decided_from_totals_not_from_the_tail() -> None:
    capture = StreamCapture("stdout")
    block = b"x" * 1023 + b"\n"
    for _ in range(2048):  # 2 MiB: the tail keeps only the last 64-128 KiB
        capture.feed(block)
    preview = capture.preview()
    assert capture.total_lines == 2048
    assert (preview.first_line, preview.last_line, preview.cut_by) == (1999, 2048, "bytes")
    capture.close()


def test_tail_memory_is_bounded() -> None:
    capture = StreamCapture("stdout")
    chunk = b"y\n" * 50_000
    for _ in range(200):  # 20 MB through
        capture.feed(chunk)
        assert len(capture._tail) <= 2 * TAIL_BYTES
    assert capture.total_lines == 10_000_000
    assert capture.saved_bytes == 10 * 1024 * 1024
    capture.close()


def test_line_without_final_newline_counts() -> None:
    capture = fed(b"a\nb\nc", 1)
    assert capture.total_lines == 3
    assert capture.preview().text == "a\nb\nc"


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    capture = fed(b"ok \xff\xfe end\n", 3)
    assert capture.preview().text == "ok \ufffd\ufffd end"


def test_log_layout_and_line_numbers(tmp_path: Path) -> None:
    out, err = fed(b"one\ntwo", 2), fed(b"E1\nE2\n", 5, "stderr")
    log = write_log(
        "printf x\necho y", [out, err], footer="[exit code: 3]", directory=str(tmp_path)
    )
    assert log.path is not None
    assert Path(log.path).read_text() == (
        "$ printf x\necho y\n[stdout]\none\ntwo\n[stderr]\nE1\nE2\n[exit code: 3]\n"
    )
    assert log.first_line == {"stdout": 4, "stderr": 7}


def test_log_names_are_unique_and_exclusive(tmp_path: Path) -> None:
    streams = [fed(b"a\n", 1)]
    paths = {write_log("c", streams, footer=None, directory=str(tmp_path)).path for _ in range(20)}
    assert len(paths) == 20
    assert all(p is not None and Path(p).name.startswith("ink-output-") for p in paths)


def test_interrupted_marker_in_log(tmp_path: Path) -> None:
    out = fed(b"".join(b"%d\n" % i for i in range(1, 1001)), 100)
    text, path = format_output(
        "seq 1 1000",
        [out, StreamCapture("stderr")],
        exit_code=None,
        interruption="command aborted by user",
        log_dir=str(tmp_path),
    )
    assert path is not None
    assert (
        Path(path)
        .read_text()
        .endswith("1000\n[stderr]\n[command interrupted: command aborted by user]\n")
    )
    assert "showing lines 501-1000 of 1000 (500 line limit)" in text


async def test_real_process_writing_byte_by_byte(tmp_path: Path) -> None:
    script = (
        "import os, sys, time\n"
        f"data = {TEXT!r}.encode()\n"
        "for i in range(len(data)):\n"
        "    os.write(1, data[i:i+1]); os.write(2, data[i:i+1])\n"
        "    if i % 7 == 0: time.sleep(0.0005)\n"
    )
    (tmp_path / "w.py").write_text(script)
    result = await BashTool(log_dir=str(tmp_path)).execute(
        BashParams(command=f"{sys.executable} w.py"), NEVER, ToolContext("c", tmp_path)
    )
    body = TEXT.rstrip("\n")
    assert result.output == f"stdout:\n{body}\n\nstderr:\n{body}"


def test_log_dirs_of_dead_processes_are_removed_and_logs_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    from ink_ls.tools import _output

    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"ink-ls-{dead.pid}-abcd"
    stale.mkdir()
    (stale / "ink-output-x.log").write_text("old")
    live = tmp_path / f"ink-ls-{os.getpid()}-other"
    live.mkdir()
    monkeypatch.setattr(_output.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(_output, "_log_dir", None)
    monkeypatch.setattr(_output, "MAX_LOGS", 3)
    try:
        capture = _output.StreamCapture("stdout")
        capture.feed(b"x\n")
        paths = [_output.write_log("echo", [capture], footer=None).path for _ in range(5)]
        mine = _output.process_log_dir()
        assert not stale.exists() and live.exists()  # a live pid's directory is left alone
        assert sorted(p.name for p in mine.iterdir()) == sorted(
            Path(p).name for p in paths[-3:] if p
        )
    finally:
        _output.remove_log_dir()
    assert not mine.exists()


def whole_stream_preview(data: bytes) -> tuple[str, int, str | None]:
    """What the preview must show, computed from the whole stream at once (the reference)."""
    body = data[:-1] if data.endswith(b"\n") else data
    lines = body.decode("utf-8", errors="replace").split("\n")
    size, taken = 0, 0
    for line in reversed(lines):
        add = len(line.encode()) + (1 if taken else 0)
        if taken == MAX_LINES or size + add > MAX_BYTES:
            break
        size, taken = size + add, taken + 1
    if taken == len(lines):
        return "\n".join(lines), 1, None
    if taken == 0:
        last = lines[-1].encode()
        start = max(len(last) - MAX_BYTES, 0)
        while start < len(last) and (last[start] & 0xC0) == 0x80:
            start += 1
        return last[start:].decode(), len(lines), "bytes"
    cut_by = "lines" if taken == MAX_LINES else "bytes"
    return "\n".join(lines[-taken:]), len(lines) - taken + 1, cut_by


LINE_PIECES = st.sampled_from(
    [b"a", b"\xc3\xa9", "日".encode(), "😀".encode(), b"\xff", b"\xe6\x97", b"x" * 997]
)


@given(
    st.lists(
        st.tuples(st.lists(LINE_PIECES, max_size=80), st.integers(min_value=1, max_value=60)),
        min_size=1,
        max_size=40,
    ),
    st.integers(min_value=1, max_value=70_000),
    st.booleans(),
)
def test_the_preview_of_the_tail_window_is_that_of_the_whole_stream(
    lines: list[tuple[list[bytes], int]], chunk: int, newline_at_end: bool
) -> None:
    # Lines from a few bytes to ~80 KB (repeated pieces), multi-byte and invalid UTF-8: far
    # more than the 64 KiB kept in memory, with cuts falling inside characters and lines.
    data = b"\n".join(b"".join(pieces) * times for pieces, times in lines)
    data += b"\n" if newline_at_end else b""
    capture = fed(data, chunk)
    preview = capture.preview()
    capture.close()
    assert (preview.text, preview.first_line, preview.cut_by) == whole_stream_preview(data)
    assert len(capture._tail) <= 2 * TAIL_BYTES


async def test_a_finished_command_scans_the_processes_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans: list[int] = []
    real = _process._scan

    def counted() -> dict[int, ProcInfo] | None:
        scans.append(1)
        return real()

    def whole_machine() -> None:
        raise AssertionError("all of /proc was read: the cost would follow the machine's load")

    monkeypatch.setattr(_process, "_scan", counted)
    monkeypatch.setattr(_process, "snapshot", whole_machine)
    before = set(map(id, _process.tracked()))
    tool = BashTool(log_dir=str(tmp_path))
    for _ in range(3):
        result = await tool.execute(
            BashParams(command="seq 1 200000"), NEVER, ToolContext("c", tmp_path)
        )
        assert "[stdout: showing lines 199501-200000 of 200000 (500 line limit)." in result.output
    assert len(scans) == 3  # one per call: none left for the next spawn to prune
    assert set(map(id, _process.tracked())) == before  # each call's tree was forgotten

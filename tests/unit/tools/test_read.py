"""read on real files: windows, the exact notes and errors, boundaries, buffers, cancel, memory."""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
import tracemalloc
from pathlib import Path

import pytest
from pydantic import ValidationError

from ink_ls.agent.pipeline import CallResult, decode_arguments, prepare
from ink_ls.core.messages import ToolCall
from ink_ls.core.signal import NEVER, CancelController
from ink_ls.core.tool import Access, ToolContext, ToolRegistry, ToolResult
from ink_ls.tools.read import ReadParams, ReadTool


class BufferStub:
    """A FileView with some documents open in an 'editor'."""

    def __init__(self, docs: dict[Path, str]) -> None:
        self.docs = docs
        self.asked: list[Path] = []

    def open_document(self, path: Path) -> str | None:
        self.asked.append(path)
        return self.docs.get(path)


async def read(cwd: Path, files: BufferStub | None = None, **args: object) -> ToolResult:
    ctx = ToolContext("call-1", cwd) if files is None else ToolContext("call-1", cwd, files=files)
    return await ReadTool().execute(ReadParams.model_validate(args), NEVER, ctx)


def numbered_lines(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


async def test_small_file_whole_without_note(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    r = await read(tmp_path, path="a.txt")
    assert (r.output, r.is_error) == ("alpha\nbeta", False)


async def test_exactly_2000_lines_has_no_note(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(numbered_lines(2000))
    r = await read(tmp_path, path="a.txt")
    assert r.output == numbered_lines(2000).rstrip("\n")


async def test_2001_lines_cut_at_2000_with_exact_note(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(numbered_lines(2001))
    r = await read(tmp_path, path="a.txt")
    assert r.output == (
        numbered_lines(2000).rstrip("\n")
        + "\n\n[Showing lines 1-2000 of 2001 (2000 line limit). Use offset=2001 to continue.]"
    )
    r2 = await read(tmp_path, path="a.txt", offset=2001)
    assert r2.output == "line 2001"


async def test_line_limit_note_in_the_middle(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(numbered_lines(5000))
    r = await read(tmp_path, path="a.txt", offset=2001, limit=3000)
    assert r.output.endswith(
        "line 4000\n\n[Showing lines 2001-4000 of 5000 (2000 line limit). "
        "Use offset=4001 to continue.]"
    )
    assert r.output.startswith("line 2001\n")


def file_of_bytes(path: Path, size: int) -> None:
    """Lines of 100 bytes (99 + newline), the last one shortened so the file is `size` bytes."""
    full, rest = divmod(size, 100)
    body = "".join(f"{i:098d}x\n" for i in range(full))
    if rest:
        body += "y" * (rest - 1) + "\n"
    path.write_text(body)
    assert path.stat().st_size == size


async def test_exactly_51200_bytes_shown_whole(tmp_path: Path) -> None:
    file_of_bytes(tmp_path / "a.txt", 51_200)
    r = await read(tmp_path, path="a.txt")
    assert r.output == (tmp_path / "a.txt").read_text().rstrip("\n")


async def test_51201_bytes_cut_at_whole_line_with_exact_note(tmp_path: Path) -> None:
    file_of_bytes(tmp_path / "a.txt", 51_201)  # 512 lines of 100 bytes + a 1-byte line
    r = await read(tmp_path, path="a.txt")
    lines = (tmp_path / "a.txt").read_text().split("\n")
    assert r.output == "\n".join(lines[:512]) + (
        "\n\n[Showing lines 1-512 of 513 (50KB limit). Use offset=513 to continue.]"
    )


async def test_caller_limit_note(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(numbered_lines(10))
    r = await read(tmp_path, path="a.txt", offset=3, limit=4)
    assert r.output == (
        "line 3\nline 4\nline 5\nline 6\n\n[4 more lines in file. Use offset=7 to continue.]"
    )
    r = await read(tmp_path, path="a.txt", offset=7, limit=4)
    assert r.output == "line 7\nline 8\nline 9\nline 10"


async def test_offset_beyond_end(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(numbered_lines(10))
    r = await read(tmp_path, path="a.txt", offset=11)
    assert r.is_error
    assert r.output == "Error: offset 11 is beyond the end of the file (10 lines total)"


async def test_last_line_without_newline_counts(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\nb\nc")
    r = await read(tmp_path, path="a.txt", limit=1)
    assert r.output == "a\n\n[2 more lines in file. Use offset=2 to continue.]"
    assert (await read(tmp_path, path="a.txt", offset=3)).output == "c"


async def test_crlf_and_bom_are_not_shown(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    assert (await read(tmp_path, path="a.txt")).output == "one\ntwo"


async def test_empty_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("")
    r = await read(tmp_path, path="a.txt")
    assert (r.output, r.is_error) == ("(empty file)", False)


async def test_missing_file(tmp_path: Path) -> None:
    r = await read(tmp_path, path="nope/a.txt")
    assert r.is_error
    assert r.output == "Error reading nope/a.txt: No such file or directory"


async def test_directory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    r = await read(tmp_path, path="d")
    assert r.is_error
    assert r.output == "Error reading d: Is a directory (use the ls tool to list it)"


async def test_empty_path(tmp_path: Path) -> None:
    r = await read(tmp_path, path="  ")
    assert r.is_error
    assert r.output.startswith("Error: path is empty")


async def test_binary_file_refused(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"abc" * 1000 + b"\x00" + b"z" * 10)
    r = await read(tmp_path, path="blob.bin")
    assert r.is_error
    assert r.output == "Error: blob.bin looks like a binary file; the read tool only supports text."


async def test_nul_after_first_8k_is_text(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"x" * 8192 + b"\n\x00\n")
    r = await read(tmp_path, path="a.txt", offset=2)
    assert (r.output, r.is_error) == ("\x00", False)


async def test_absolute_and_dotdot_paths(tmp_path: Path) -> None:
    (tmp_path / "w").mkdir()
    (tmp_path / "out.txt").write_text("outside\n")
    assert (await read(tmp_path / "w", path="../out.txt")).output == "outside"
    assert (await read(tmp_path / "w", path=str(tmp_path / "out.txt"))).output == "outside"


@pytest.mark.parametrize("value", [0, -1, 1.5, "2", True, None])
@pytest.mark.parametrize("field", ["offset", "limit"])
def test_offset_and_limit_validated_before_io(field: str, value: object) -> None:
    if value is None:
        assert getattr(ReadParams.model_validate({"path": "x", field: None}), field) is None
        return
    with pytest.raises(ValidationError) as info:
        ReadParams.model_validate({"path": "x", field: value})
    (error,) = info.value.errors()
    shown = {0: "0", -1: "-1", 1.5: "1.5", "2": '"2"', True: "true"}[value]  # type: ignore[index]
    hint = " (1-indexed)" if field == "offset" else ""
    assert error["loc"] == (field,)
    assert error["msg"] == f"{field} must be a positive integer{hint}, got {shown}"


def test_json_input_validated_the_same_way() -> None:
    with pytest.raises(ValidationError) as info:
        ReadParams.model_validate_json('{"path": "x", "offset": "2"}')
    assert info.value.errors()[0]["msg"] == 'offset must be a positive integer (1-indexed), got "2"'


async def test_execute_rechecks_unvalidated_args(tmp_path: Path) -> None:
    args = ReadParams.model_construct(path="missing", offset=0, limit=None)
    r = await ReadTool().execute(args, NEVER, ToolContext("c", tmp_path))
    assert r.is_error
    assert r.output == "Error: offset must be a positive integer (1-indexed), got 0"


@pytest.mark.parametrize("name", ["with space.txt", 'it\'s "quoted".txt', "-leading.txt"])
async def test_long_first_line_hint_runs_in_bash(tmp_path: Path, name: str) -> None:
    line = "é" * 40_000  # 80,000 bytes, over 50KB
    (tmp_path / name).write_text("short\n" + line + "\nafter\n")
    r = await read(tmp_path, path=name, offset=2)
    assert not r.is_error
    prefix = (
        "[Line 2 is 78.1KB, over the 50KB limit, so it is not shown. "
        "To see its first 50KB, run in bash: "
    )
    assert r.output.startswith(prefix) and r.output.endswith("]")
    command = r.output[len(prefix) : -1]
    assert command.startswith("sed -n '2p' '") and command.endswith("' | head -c 51200")
    out = subprocess.run(
        ["/bin/bash", "-c", command], cwd=tmp_path, capture_output=True, check=True
    ).stdout
    assert out == line.encode()[:51_200]


async def test_buffer_text_wins_over_disk(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("on disk\n")
    files = BufferStub({tmp_path / "a.py": "unsaved 1\nunsaved 2\n"})
    r = await read(tmp_path, files, path="a.py", offset=2)
    assert r.output == "unsaved 2"
    assert files.asked == [tmp_path / "a.py"]


async def test_buffer_of_file_not_on_disk(tmp_path: Path) -> None:
    files = BufferStub({tmp_path / "new.py": "x = 1"})
    assert (await read(tmp_path, files, path="new.py")).output == "x = 1"


def test_access_sees_through_symlinks(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("x")
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "link.txt").symlink_to(tmp_path / "real.txt")
    access = ReadTool().access(ReadParams(path="link.txt"), tmp_path / "w")
    assert access == Access(reads=frozenset({(tmp_path / "real.txt").resolve()}))


def test_schema_pinned() -> None:
    assert ReadTool().parameters() == {
        "additionalProperties": False,
        "type": "object",
        "required": ["path"],
        "properties": {
            "path": {
                "type": "string",
                "description": "Path of the file to read, relative to the workspace root or "
                "absolute.",
            },
            "offset": {
                "anyOf": [{"minimum": 1, "type": "integer"}, {"type": "null"}],
                "default": None,
                "description": "Line number to start reading from (1-indexed). Use it to "
                "continue a cut read.",
            },
            "limit": {
                "anyOf": [{"minimum": 1, "type": "integer"}, {"type": "null"}],
                "default": None,
                "description": "Maximum number of lines to read (at most 2000 are returned "
                "per call).",
            },
        },
    }
    assert ReadTool.concurrency_safe


def write_big(path: Path, lines: int) -> None:
    block = "".join(f"{i:07d} text\n" for i in range(100_000)).encode()
    with open(path, "wb") as fh:
        for _ in range(lines // 100_000):
            fh.write(block)


async def test_window_deep_in_a_big_file_keeps_memory_bounded(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    write_big(big, 4_000_000)  # 52 MB
    tracemalloc.start()
    try:
        r = await read(tmp_path, path="big.log", offset=1_900_001, limit=2000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert r.output.startswith("0000000 text\n0000001 text\n")
    assert r.output.endswith(
        "0001999 text\n\n[2098000 more lines in file. Use offset=1902001 to continue.]"
    )
    assert peak < 8 * 1024 * 1024, peak  # 1 MiB chunks plus the window, not the 52 MB file


async def test_cancel_stops_the_scan(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    write_big(big, 2_000_000)
    ctrl = CancelController()
    started = threading.Event()

    class Recording(BufferStub):
        def open_document(self, path: Path) -> str | None:
            started.set()
            return None

    ctrl.cancel("user")  # already cancelled: the scan must stop at its first chunk check
    ctx = ToolContext("c", tmp_path, files=Recording({}))
    r = await asyncio.wait_for(
        ReadTool().execute(ReadParams(path="big.log", offset=1_999_999), ctrl.signal, ctx), 5
    )
    assert started.is_set()
    assert (r.output, r.is_error) == ("Error: read aborted by user", True)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ('"offset": 0', "0"),
        ('"offset": -1', "-1"),
        ('"offset": 1.5', "1.5"),
        ('"offset": "2"', '"2"'),
    ],
)
def test_pipeline_refuses_bad_offset_with_the_exact_text(raw: str, shown: str) -> None:
    call = ToolCall(id="t1", name="read", arguments='{"path": "a.txt", ' + raw + "}")
    result = prepare(call, ToolRegistry([ReadTool()]), decode_arguments(call.arguments))
    assert isinstance(result, CallResult) and result.is_error
    assert [b.text for b in result.content if b.type == "text"] == [
        "Error: invalid arguments for read — /offset: offset must be a positive integer "
        f"(1-indexed), got {shown}. Fix the arguments and retry."
    ]


async def test_fifo_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    r = await asyncio.wait_for(read(tmp_path, path="pipe"), 5)
    assert (r.output, r.is_error) == (
        "Error: pipe is not a regular file (a pipe, socket or device); the read tool only "
        "reads files.",
        True,
    )

"""Output caps as the model gets them: binary command output measured after decoding, and the
long-line hint never naming a size equal to the limit it exceeds. Real processes, real files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ink_ls.core.signal import NEVER
from ink_ls.core.tool import ToolContext
from ink_ls.tools._output import MAX_BYTES
from ink_ls.tools._truncate import format_size
from ink_ls.tools.bash import BashParams, BashTool
from ink_ls.tools.read import ReadParams, ReadTool


def _stdout_section(output: str) -> tuple[str, str]:
    """The preview text and its note from a bash result with one cut stdout."""
    body = output.removeprefix("stdout:\n")
    text, note = body.rsplit("\n[stdout: ", 1)
    return text, "[stdout: " + note


@pytest.mark.parametrize(
    ("payload", "lines"),
    [
        ("sys.stdout.buffer.write(b'\\xff' * 40000)", 1),  # under 50KB raw, 120KB decoded
        ("sys.stdout.buffer.write((b'\\x80\\xfe' * 20 + b'\\n') * 2000)", 2000),
    ],
)
async def test_binary_output_preview_respects_the_byte_cap_after_decoding(
    tmp_path: Path, payload: str, lines: int
) -> None:
    tool = BashTool(log_dir=str(tmp_path))
    command = f'{sys.executable} -c "import sys; {payload}"'
    r = await tool.execute(BashParams(command=command), NEVER, ToolContext("c", tmp_path))
    assert not r.is_error
    text, note = _stdout_section(r.output)
    assert set(text) <= {"\ufffd", "\n"}
    assert len(text.encode("utf-8")) <= MAX_BYTES
    assert len(text.encode("utf-8")) > MAX_BYTES - 200  # the cap is used, not undershot
    if lines == 1:
        assert note.startswith("[stdout: showing the last 50KB of line 1 of 1 (50KB limit).")
    else:
        shown = text.count("\n") + 1
        assert note.startswith(
            f"[stdout: showing lines {lines - shown + 1}-{lines} of {lines} (50KB limit)."
        )
    log = note.split("Full output: ", 1)[1].split(" (", 1)[0]
    assert Path(log).read_bytes().count(b"\xfe") == (0 if lines == 1 else 20 * 2000)


def test_sizes_next_to_a_limit_never_read_as_the_limit() -> None:
    assert format_size(51_200) == "50KB"
    assert format_size(51_201) == "50.1KB"
    assert format_size(51_199) == "49.9KB"
    assert format_size(64 * 1024 * 1024 + 1) == "64.1MB"


async def test_long_line_hint_for_a_line_one_byte_over_the_limit(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x" * 51_201 + "\nnext\n")
    r = await ReadTool().execute(ReadParams(path="a.txt"), NEVER, ToolContext("c", tmp_path))
    assert r.output.startswith("[Line 1 is 50.1KB, over the 50KB limit, so it is not shown.")

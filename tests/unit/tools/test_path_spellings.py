"""Paths as people and models spell them, for every tool that takes a path: a leading @, a plain
space for U+00A0/U+202F, straight for curly quotes, NFC for NFD. Real files with those names."""

from __future__ import annotations

import io
import os
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from ink_ls.core.messages import ImageBlock, TextBlock
from ink_ls.core.signal import NEVER
from ink_ls.core.tool import AnyTool, ToolContext, ToolResult
from ink_ls.tools.edit import EditTool
from ink_ls.tools.find import FindTool
from ink_ls.tools.grep import GrepTool
from ink_ls.tools.ls import LsTool
from ink_ls.tools.read import ReadTool
from ink_ls.tools.write import WriteTool

NNBSP, NBSP = "\u202f", "\u00a0"
SHOT = f"Screenshot 2024-01-02 at 1.02.03{NNBSP}PM.png"  # macOS's own name
CAFE_NFD = unicodedata.normalize("NFD", "café.txt")


async def call(tool: AnyTool, cwd: Path, **args: Any) -> ToolResult:
    params = tool.params_model.model_validate(args)
    return await tool.execute(params, NEVER, ToolContext("c", cwd))


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (3, 2), (255, 0, 0)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("alpha = 1\n")
    (tmp_path / SHOT).write_bytes(png())
    (tmp_path / CAFE_NFD).write_text("crème\n")
    (tmp_path / "Bob\u2019s notes.txt").write_text("curly\n")
    (tmp_path / f"my{NBSP}dir").mkdir()
    (tmp_path / f"my{NBSP}dir" / "f.txt").write_text("inside\n")
    return tmp_path


async def test_read_a_chat_mention(tree: Path) -> None:
    r = await call(ReadTool(), tree, path="@src/a.py")
    assert r.output == (
        '[Note: "@src/a.py" does not exist; used "src/a.py", the same name without the '
        "leading @.]\nalpha = 1"
    )


async def test_read_a_macos_screenshot_typed_with_a_plain_space(tree: Path) -> None:
    typed = SHOT.replace(NNBSP, " ")
    r = await call(ReadTool(), tree, path=typed)
    note = (
        f'[Note: "{typed}" does not exist; used "Screenshot 2024-01-02 at 1.02.03\\u202fPM.png", '
        "the same name with U+202F narrow no-break space where a plain space was given.]"
    )
    assert r.content is not None
    assert r.content[0] == TextBlock(text=note)
    assert isinstance(r.content[2], ImageBlock) and r.content[2].mime_type == "image/png"
    assert r.output.startswith(note + "\nRead image file [image/png]")


async def test_read_nfc_name_of_an_nfd_file_and_a_curly_apostrophe(tree: Path) -> None:
    r = await call(ReadTool(), tree, path="café.txt")
    assert r.output.endswith("in decomposed Unicode (NFD).]\ncrème")
    r = await call(ReadTool(), tree, path="Bob's notes.txt")
    assert r.output == (
        '[Note: "Bob\'s notes.txt" does not exist; used "Bob\\u2019s notes.txt", the same '
        "name with the other kind of quotes.]\ncurly"
    )


async def test_edit_changes_the_file_that_exists(tree: Path) -> None:
    before = sorted(os.listdir(tree))
    r = await call(
        EditTool(), tree, path="café.txt", edits=[{"oldText": "crème", "newText": "brûlée"}]
    )
    assert not r.is_error, r.output
    assert r.output.endswith("]\nEdited café.txt: 1 edit applied.")
    assert (tree / CAFE_NFD).read_text() == "brûlée\n"
    assert sorted(os.listdir(tree)) == before


async def test_write_overwrites_the_existing_file_and_creates_in_the_existing_dir(
    tree: Path,
) -> None:
    before = sorted(os.listdir(tree))
    r = await call(WriteTool(), tree, path="Bob's notes.txt", content="new\n")
    assert r.output.endswith("]\nOverwrote Bob's notes.txt (1 lines, 4 bytes)")
    assert (tree / "Bob\u2019s notes.txt").read_text() == "new\n"
    r = await call(WriteTool(), tree, path="my dir/g.txt", content="g\n")
    assert r.output == (
        '[Note: "my dir/g.txt" does not exist; used "my\\u00a0dir/g.txt", the same name with '
        "U+00A0 no-break space where a plain space was given.]\n"
        "Created my dir/g.txt (1 lines, 2 bytes)"
    )
    assert (tree / f"my{NBSP}dir" / "g.txt").read_text() == "g\n"
    assert sorted(os.listdir(tree)) == before  # no "my dir" next to "my\u00a0dir"
    r = await call(WriteTool(), tree, path="brand new.txt", content="x")
    assert r.output == "Created brand new.txt (1 lines, 1 bytes)"


async def test_ls_grep_find_in_a_directory_spelled_with_a_plain_space(tree: Path) -> None:
    note = (
        '[Note: "my dir" does not exist; used "my\\u00a0dir", the same name with U+00A0 '
        "no-break space where a plain space was given.]"
    )
    assert (await call(LsTool(), tree, path="my dir")).output == f"{note}\nf.txt"
    r = await call(GrepTool(), tree, pattern="inside", path="my dir")
    assert r.output == f"{note}\nmy{NBSP}dir/f.txt:1: inside"
    r = await call(FindTool(), tree, pattern="*.txt", path="my dir")
    assert r.output == f"{note}\nmy{NBSP}dir/f.txt"


async def test_several_matches_are_an_error_listing_them(tmp_path: Path) -> None:
    (tmp_path / f"a{NBSP}b.txt").write_text("1\n")
    (tmp_path / f"a{NNBSP}b.txt").write_text("2\n")
    for tool, args in [
        (ReadTool(), {}),
        (EditTool(), {"edits": [{"oldText": "1", "newText": "3"}]}),
        (WriteTool(), {"content": "x"}),
        (LsTool(), {}),
        (GrepTool(), {"pattern": "1"}),
        (FindTool(), {"pattern": "*"}),
    ]:
        r = await call(tool, tmp_path, path="a b.txt", **args)
        assert r.is_error, tool.name
        listed = {r.output.split("told apart: ")[1].split(". Give")[0]}
        assert r.output.startswith('Error: "a b.txt" does not exist, and 2 paths match it'), tool
        assert listed <= {'"a\\u00a0b.txt", "a\\u202fb.txt"', '"a\\u202fb.txt", "a\\u00a0b.txt"'}
        assert r.output.endswith("Give the exact path of the one you mean.")
    assert sorted(os.listdir(tmp_path)) == [f"a{NBSP}b.txt", f"a{NNBSP}b.txt"]
    assert (tmp_path / f"a{NBSP}b.txt").read_text() == "1\n"


async def test_the_exact_path_wins_and_nothing_matching_stays_not_found(tmp_path: Path) -> None:
    (tmp_path / "a b.txt").write_text("plain\n")
    (tmp_path / f"a{NNBSP}b.txt").write_text("narrow\n")
    assert (await call(ReadTool(), tmp_path, path="a b.txt")).output == "plain"
    r = await call(ReadTool(), tmp_path, path="@nothing.txt")
    assert (r.output, r.is_error) == ("Error reading @nothing.txt: No such file or directory", True)


def test_access_names_the_file_that_is_used(tree: Path) -> None:
    tool = EditTool()
    args = tool.params_model.model_validate(
        {"path": "@src/a.py", "edits": [{"oldText": "a", "newText": "b"}]}
    )
    assert tool.access(args, tree).writes == frozenset({(tree / "src" / "a.py").resolve()})

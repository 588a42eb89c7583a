"""write on real files: created/overwritten messages, parents, display, buffers, shared lock."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ink_ls.core.signal import NEVER, CancelController
from ink_ls.core.tool import Access, DiffDisplay, DiskWriter, ToolContext, ToolResult
from ink_ls.tools import _locks
from ink_ls.tools.edit import EditParams, EditTool
from ink_ls.tools.write import WriteParams, WriteTool


class BufferStub:
    def __init__(self, docs: dict[Path, str]) -> None:
        self.docs = docs

    def open_document(self, path: Path) -> str | None:
        return self.docs.get(path)


async def write(cwd: Path, path: str, content: str, ctx: ToolContext | None = None) -> ToolResult:
    ctx = ctx or ToolContext("call-3", cwd)
    return await WriteTool().execute(WriteParams(path=path, content=content), NEVER, ctx)


async def test_create_with_parent_directories(tmp_path: Path) -> None:
    r = await write(tmp_path, "sub/dir/new.txt", "héllo\nworld\n")
    assert (r.output, r.is_error) == ("Created sub/dir/new.txt (2 lines, 13 bytes)", False)
    target = tmp_path / "sub/dir/new.txt"
    assert target.read_text() == "héllo\nworld\n"
    assert r.display == DiffDisplay(
        target,
        "",
        "héllo\nworld\n",
        f"--- {target}\n+++ {target}\n@@ -1,0 +1,2 @@\n+1 héllo\n+2 world",
    )


async def test_overwrite(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old\n")
    r = await write(tmp_path, "a.txt", "new")
    assert r.output == "Overwrote a.txt (1 lines, 3 bytes)"
    assert (tmp_path / "a.txt").read_text() == "new"
    assert isinstance(r.display, DiffDisplay) and r.display.old_text == "old\n"


async def test_empty_content_and_crlf_kept_as_given(tmp_path: Path) -> None:
    assert (await write(tmp_path, "e.txt", "")).output == "Created e.txt (0 lines, 0 bytes)"
    r = await write(tmp_path, "w.txt", "a\r\nb\r\n")
    assert r.output == "Created w.txt (2 lines, 6 bytes)"
    assert (tmp_path / "w.txt").read_bytes() == b"a\r\nb\r\n"


async def test_binary_file_can_be_overwritten(tmp_path: Path) -> None:
    (tmp_path / "blob").write_bytes(b"\x00\x01")
    r = await write(tmp_path, "blob", "text\n")
    assert r.output == "Overwrote blob (1 lines, 5 bytes)"


async def test_directory_refused(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    r = await write(tmp_path, "d", "x")
    assert (r.output, r.is_error) == ("Error: d is a directory, not a file.", True)


async def test_open_buffer_is_the_old_text(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    ctx = ToolContext("call-3", tmp_path, files=BufferStub({target: "unsaved\n"}))
    r = await write(tmp_path, "a.txt", "new\n", ctx)
    assert r.output == "Overwrote a.txt (1 lines, 4 bytes)"
    assert isinstance(r.display, DiffDisplay) and r.display.old_text == "unsaved\n"


async def test_write_and_edit_of_one_file_share_the_lock(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("one\n")
    gate = asyncio.Event()
    begun = asyncio.Event()

    class Held(DiskWriter):
        async def write_text(self, path: Path, new_text: str, **kw: object) -> None:  # type: ignore[override]
            begun.set()
            await gate.wait()
            await super().write_text(path, new_text, **kw)  # type: ignore[arg-type]

    ctx = ToolContext("w", tmp_path, writer=Held())
    writing = asyncio.create_task(write(tmp_path, "a.txt", "two\n", ctx))
    await asyncio.wait_for(begun.wait(), 5)
    args = EditParams.model_validate(
        {"path": "a.txt", "edits": [{"oldText": "two", "newText": "three"}]}
    )
    editing = asyncio.create_task(EditTool().execute(args, NEVER, ToolContext("e", tmp_path)))
    for _ in range(10_000):  # event-loop turns until the edit waits on the lock
        if _locks._users.get(str(target.resolve()), 0) == 2:
            break
        await asyncio.sleep(0)
    gate.set()
    w, e = await asyncio.wait_for(asyncio.gather(writing, editing), 5)
    # Without the lock the edit would have read "one" and failed to find "two".
    assert (w.output, e.output) == (
        "Overwrote a.txt (1 lines, 4 bytes)",
        "Edited a.txt: 1 edit applied.",
    )
    assert target.read_text() == "three\n"


def test_access_and_schema(tmp_path: Path) -> None:
    args = WriteParams(path="n/x.txt", content="")
    assert WriteTool().access(args, tmp_path) == Access(
        writes=frozenset({tmp_path.resolve() / "n/x.txt"})
    )
    schema = WriteTool().parameters()
    assert schema["required"] == ["path", "content"]
    assert schema["additionalProperties"] is False
    assert not WriteTool.concurrency_safe


async def test_cancelled_before_writing_changes_nothing(tmp_path: Path) -> None:
    ctrl = CancelController()
    ctrl.cancel("user")
    r = await WriteTool().execute(
        WriteParams(path="a.txt", content="x"), ctrl.signal, ToolContext("c", tmp_path)
    )
    assert (r.output, r.is_error) == (
        "Error: write aborted by user; the file was not changed.",
        True,
    )
    assert not (tmp_path / "a.txt").exists()

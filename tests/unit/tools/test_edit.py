"""edit on real files: exact messages, all-or-nothing, encoding kept, buffers, per-file lock."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ink_ls.core.signal import NEVER, CancelController, CancelSignal
from ink_ls.core.tool import (
    Access,
    ChangeRejectedError,
    DiffDisplay,
    DiskWriter,
    FileView,
    FileWriter,
    ToolContext,
    ToolResult,
)
from ink_ls.tools import _locks
from ink_ls.tools.edit import EditParams, EditTool

SOURCE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


class BufferStub:
    def __init__(self, docs: dict[Path, str]) -> None:
        self.docs = docs

    def open_document(self, path: Path) -> str | None:
        return self.docs.get(path)


class RecordingWriter:
    """Writes to disk like DiskWriter and remembers every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[Path, str, str | None, str, str]] = []

    async def write_text(
        self,
        path: Path,
        new_text: str,
        *,
        old_text: str | None,
        tool_name: str,
        tool_call_id: str,
        signal: CancelSignal,
    ) -> None:
        self.calls.append((path, new_text, old_text, tool_name, tool_call_id))
        await DiskWriter().write_text(
            path,
            new_text,
            old_text=old_text,
            tool_name=tool_name,
            tool_call_id=tool_call_id,
            signal=signal,
        )


async def edit(
    cwd: Path,
    path: str,
    edits: list[dict[str, str]],
    *,
    files: FileView | None = None,
    writer: FileWriter | None = None,
    signal: CancelSignal = NEVER,
) -> ToolResult:
    ctx = ToolContext("call-7", cwd)
    if files is not None:
        ctx.files = files
    if writer is not None:
        ctx.writer = writer
    args = EditParams.model_validate({"path": path, "edits": edits})
    return await EditTool().execute(args, signal, ctx)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    (tmp_path / "f.py").write_text(SOURCE)
    return tmp_path / "f.py"


async def test_one_edit_applied_with_display_diff(tmp_path: Path, src: Path) -> None:
    writer = RecordingWriter()
    r = await edit(
        tmp_path,
        "f.py",
        [{"oldText": "return a - b", "newText": "return a - b  # minus"}],
        writer=writer,
    )
    new = SOURCE.replace("return a - b", "return a - b  # minus")
    assert (r.output, r.is_error) == ("Edited f.py: 1 edit applied.", False)
    assert src.read_text() == new
    assert writer.calls == [(src, new, SOURCE, "edit", "call-7")]
    assert r.display == DiffDisplay(
        src,
        SOURCE,
        new,
        f"--- {src}\n+++ {src}\n@@ -3,4 +3,4 @@\n 3 \n 4 \n 5 def sub(a, b):\n"
        "-6     return a - b\n+6     return a - b  # minus",
    )


async def test_several_edits_matched_against_the_original(tmp_path: Path, src: Path) -> None:
    r = await edit(
        tmp_path,
        "f.py",
        [
            {"oldText": "def sub", "newText": "def add"},  # would make "def add" ambiguous
            {"oldText": "def add", "newText": "def plus"},  # still unique in the original
        ],
    )
    assert r.output == "Edited f.py: 2 edits applied."
    assert src.read_text() == SOURCE.replace("def add", "def plus").replace("def sub", "def add")


async def test_ambiguous_match_refused(tmp_path: Path, src: Path) -> None:
    r = await edit(tmp_path, "f.py", [{"oldText": "return", "newText": "yield"}])
    assert r.is_error
    assert r.output == (
        "Error: edits[0].oldText matches 2 times in f.py. Include more surrounding lines so "
        "that it matches exactly once."
    )
    assert src.read_text() == SOURCE


async def test_overlapping_matches_count(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("aaa\n")
    r = await edit(tmp_path, "a.txt", [{"oldText": "aa", "newText": "b"}])
    assert r.output.startswith("Error: edits[0].oldText matches 2 times in a.txt.")


async def test_not_found_shows_closest_region(tmp_path: Path, src: Path) -> None:
    r = await edit(tmp_path, "f.py", [{"oldText": "def sub(a,b):\n    return a-b", "newText": "x"}])
    assert r.is_error
    assert r.output == (
        "Error: edits[0].oldText was not found in f.py. The closest region is lines 5-6:\n"
        "5\tdef sub(a, b):\n"
        "6\t    return a - b\n"
        "Copy the text exactly as it is there (whitespace and indentation included) and retry."
    )


async def test_not_found_without_anything_close(tmp_path: Path, src: Path) -> None:
    r = await edit(tmp_path, "f.py", [{"oldText": "zzzz qqqq", "newText": "x"}])
    assert r.output == (
        "Error: edits[0].oldText was not found in f.py. Read the file to get its current "
        "text, then retry with an exact copy."
    )


async def test_empty_old_text_refused(tmp_path: Path, src: Path) -> None:
    r = await edit(tmp_path, "f.py", [{"oldText": "", "newText": "x"}])
    assert r.is_error
    assert r.output == (
        "Error: edits[0].oldText is empty. Give the exact text to replace, with enough "
        "surrounding lines to be unique (use write to replace a whole file)."
    )


async def test_no_op_edit_refused(tmp_path: Path, src: Path) -> None:
    r = await edit(
        tmp_path,
        "f.py",
        [{"oldText": "def add", "newText": "def plus"}, {"oldText": "b\n", "newText": "b\n"}],
    )
    assert r.is_error
    assert r.output == (
        "Error: edits[1] changes nothing: oldText and newText are identical. "
        "Remove it or give the new text."
    )
    assert src.read_text() == SOURCE


async def test_overlapping_edits_refused(tmp_path: Path, src: Path) -> None:
    r = await edit(
        tmp_path,
        "f.py",
        [{"oldText": "a + b", "newText": "x"}, {"oldText": "return a + b", "newText": "y"}],
    )
    assert r.is_error
    assert r.output == (
        "Error: edits[0] and edits[1] overlap in f.py. Merge them into one edit, or choose "
        "regions that do not overlap."
    )


async def test_all_or_nothing(tmp_path: Path, src: Path) -> None:
    writer = RecordingWriter()
    r = await edit(
        tmp_path,
        "f.py",
        [{"oldText": "def add", "newText": "def plus"}, {"oldText": "missing", "newText": "x"}],
        writer=writer,
    )
    assert r.is_error and r.output.startswith("Error: edits[1].oldText was not found in f.py.")
    assert writer.calls == []
    assert src.read_text() == SOURCE


async def test_crlf_and_bom_kept(tmp_path: Path) -> None:
    path = tmp_path / "win.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    r = await edit(tmp_path, "win.txt", [{"oldText": "two\nthree", "newText": "2\n3\n4"}])
    assert r.output == "Edited win.txt: 1 edit applied."
    assert path.read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n3\r\n4\r\n"


async def test_crlf_old_text_on_lf_file(tmp_path: Path, src: Path) -> None:
    r = await edit(
        tmp_path, "f.py", [{"oldText": "b):\r\n    return a + b", "newText": "b):\r\n    pass"}]
    )
    assert not r.is_error
    assert src.read_bytes() == SOURCE.replace("    return a + b", "    pass").encode()


async def test_dominant_line_ending_wins(tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"a\r\nb\r\nc\nd\r\n")
    await edit(tmp_path, "mixed.txt", [{"oldText": "a", "newText": "A"}])
    assert path.read_bytes() == b"A\r\nb\r\nc\r\nd\r\n"


async def test_buffer_text_is_edited(tmp_path: Path, src: Path) -> None:
    unsaved = "x = 1\ny = 2\n"
    writer = RecordingWriter()
    r = await edit(
        tmp_path,
        "f.py",
        [{"oldText": "y = 2", "newText": "y = 3"}],
        files=BufferStub({src: unsaved}),
        writer=writer,
    )
    assert r.output == "Edited f.py: 1 edit applied."
    assert writer.calls == [(src, "x = 1\ny = 3\n", unsaved, "edit", "call-7")]


async def test_missing_binary_and_non_utf8_files(tmp_path: Path) -> None:
    r = await edit(tmp_path, "nope.py", [{"oldText": "a", "newText": "b"}])
    assert (r.output, r.is_error) == (
        "Error reading nope.py: No such file or directory (use write to create a file)",
        True,
    )
    (tmp_path / "bin").write_bytes(b"a\x00b")
    r = await edit(tmp_path, "bin", [{"oldText": "a", "newText": "b"}])
    assert r.output == "Error: bin looks like a binary file; only text files can be changed."
    (tmp_path / "latin").write_bytes(b"caf\xe9\n")
    r = await edit(tmp_path, "latin", [{"oldText": "caf", "newText": "b"}])
    assert r.output == (
        "Error: latin is not valid UTF-8 (byte 3); only UTF-8 text files can be changed."
    )


async def test_rejection_by_the_writer_propagates(tmp_path: Path, src: Path) -> None:
    class Rejecting(RecordingWriter):
        async def write_text(self, path: Path, new_text: str, **kw: object) -> None:  # type: ignore[override]
            raise ChangeRejectedError("user", "not now")

    with pytest.raises(ChangeRejectedError) as info:
        await edit(tmp_path, "f.py", [{"oldText": "def add", "newText": "x"}], writer=Rejecting())
    assert (info.value.source, info.value.reason) == ("user", "not now")
    assert src.read_text() == SOURCE
    assert _locks.held_count() == 0


def test_params_accept_camel_case_and_field_names() -> None:
    a = EditParams.model_validate({"path": "p", "edits": [{"oldText": "a", "newText": "b"}]})
    b = EditParams.model_validate({"path": "p", "edits": [{"old_text": "a", "new_text": "b"}]})
    assert a == b
    with pytest.raises(ValueError):
        EditParams.model_validate({"path": "p", "edits": []})


def test_schema_uses_camel_case() -> None:
    schema = EditTool().parameters()
    item = schema["$defs"]["EditItem"]
    assert item["required"] == ["oldText", "newText"]
    assert item["additionalProperties"] is False
    assert all("description" in p for p in item["properties"].values())
    assert schema["properties"]["edits"]["minItems"] == 1
    assert not EditTool.concurrency_safe


def test_access_is_a_write(tmp_path: Path) -> None:
    args = EditParams.model_validate(
        {"path": "x/../f.py", "edits": [{"oldText": "a", "newText": "b"}]}
    )
    assert EditTool().access(args, tmp_path) == Access(
        writes=frozenset({tmp_path.resolve() / "f.py"})
    )


class GateWriter(RecordingWriter):
    """Writes only when its gate opens; reports when a write has begun."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.entered: dict[str, asyncio.Event] = {}

    def entered_for(self, name: str) -> asyncio.Event:
        return self.entered.setdefault(name, asyncio.Event())

    async def write_text(self, path: Path, new_text: str, **kw: object) -> None:  # type: ignore[override]
        self.entered_for(path.name).set()
        await self.gate.wait()
        await super().write_text(path, new_text, **kw)  # type: ignore[arg-type]


async def wait_for_waiters(path: Path, n: int) -> None:
    """Until `n` calls hold or wait for the lock of `path` (event-loop turns, no clock)."""
    for _ in range(10_000):
        if _locks._users.get(str(path.resolve()), 0) >= n:
            return
        await asyncio.sleep(0)
    raise AssertionError("the second edit never reached the lock")


async def test_edits_of_one_file_are_serialized(tmp_path: Path, src: Path) -> None:
    writer = GateWriter()
    first = asyncio.create_task(
        edit(tmp_path, "f.py", [{"oldText": "def add", "newText": "def plus"}], writer=writer)
    )
    await asyncio.wait_for(writer.entered_for("f.py").wait(), 5)
    second = asyncio.create_task(
        edit(tmp_path, "f.py", [{"oldText": "def sub", "newText": "def minus"}], writer=writer)
    )
    await wait_for_waiters(src, 2)
    assert len(writer.calls) == 0  # the first is still inside its write, the second waits
    writer.gate.set()
    results = await asyncio.wait_for(asyncio.gather(first, second), 5)
    assert [r.output for r in results] == ["Edited f.py: 1 edit applied."] * 2
    # The second read the first one's result: both changes are there.
    assert src.read_text() == SOURCE.replace("def add", "def plus").replace("def sub", "def minus")
    assert _locks.held_count() == 0


async def test_edits_of_two_files_overlap(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")

    class Meeting(RecordingWriter):
        """Each write waits until the other file's write has begun: only overlap finishes."""

        def __init__(self) -> None:
            super().__init__()
            self.begun = {"a.txt": asyncio.Event(), "b.txt": asyncio.Event()}

        async def write_text(self, path: Path, new_text: str, **kw: object) -> None:  # type: ignore[override]
            self.begun[path.name].set()
            other = "b.txt" if path.name == "a.txt" else "a.txt"
            await self.begun[other].wait()
            await super().write_text(path, new_text, **kw)  # type: ignore[arg-type]

    writer = Meeting()
    results = await asyncio.wait_for(
        asyncio.gather(
            edit(tmp_path, "a.txt", [{"oldText": "a", "newText": "A"}], writer=writer),
            edit(tmp_path, "b.txt", [{"oldText": "b", "newText": "B"}], writer=writer),
        ),
        5,
    )
    assert [r.output for r in results] == [
        "Edited a.txt: 1 edit applied.",
        "Edited b.txt: 1 edit applied.",
    ]
    assert (tmp_path / "a.txt").read_text() + (tmp_path / "b.txt").read_text() == "A\nB\n"


async def test_cancel_while_waiting_for_the_lock(tmp_path: Path, src: Path) -> None:
    writer = GateWriter()
    first = asyncio.create_task(
        edit(tmp_path, "f.py", [{"oldText": "def add", "newText": "def plus"}], writer=writer)
    )
    await asyncio.wait_for(writer.entered_for("f.py").wait(), 5)
    ctrl = CancelController()
    second = asyncio.create_task(
        edit(
            tmp_path,
            "f.py",
            [{"oldText": "def sub", "newText": "def minus"}],
            writer=writer,
            signal=ctrl.signal,
        )
    )
    await wait_for_waiters(src, 2)
    ctrl.cancel("user")
    r = await asyncio.wait_for(second, 5)
    assert (r.output, r.is_error) == (
        "Error: edit aborted by user; the file was not changed.",
        True,
    )
    writer.gate.set()
    await asyncio.wait_for(first, 5)
    assert src.read_text() == SOURCE.replace("def add", "def plus")
    assert _locks.held_count() == 0

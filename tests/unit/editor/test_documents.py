"""Open buffers: full and incremental changes counted in utf-8, utf-16 and utf-32 units."""

from __future__ import annotations

from pathlib import Path

import pytest

from ink_ls.editor.documents import (
    OpenDocuments,
    end_position,
    offset_at,
    path_to_uri,
    uri_to_path,
)

TEXT = "a😀b\r\nß€x\nlast"


@pytest.mark.parametrize(
    ("encoding", "character", "expected"),
    [
        ("utf-16", 3, 2),  # 😀 is 2 UTF-16 units
        ("utf-8", 5, 2),  # 😀 is 4 UTF-8 bytes
        ("utf-32", 2, 2),
    ],
)
def test_offset_after_an_emoji(encoding: str, character: int, expected: int) -> None:
    assert offset_at(TEXT, 0, character, encoding) == expected
    assert TEXT[expected] == "b"


def test_offsets_on_later_lines_and_clamping() -> None:
    second = TEXT.index("ß")
    assert offset_at(TEXT, 1, 0, "utf-8") == second
    assert offset_at(TEXT, 1, 5, "utf-8") == second + 2  # ß (2 bytes) + € (3 bytes)
    assert offset_at(TEXT, 1, 99, "utf-16") == TEXT.index("\nlast")  # clamped before the EOL
    assert offset_at(TEXT, 7, 0, "utf-16") == len(TEXT)


def test_end_position() -> None:
    assert end_position(TEXT, "utf-16") == (2, 4)
    assert end_position("x😀", "utf-8") == (0, 5)
    assert end_position("", "utf-16") == (0, 0)
    assert end_position("a\n", "utf-16") == (1, 0)


def test_incremental_changes_in_the_negotiated_encoding(tmp_path: Path) -> None:
    docs = OpenDocuments(encoding="utf-8")
    path = tmp_path / "f.txt"
    uri = path_to_uri(path)
    docs.did_open(uri, "a😀b\n", 1)
    # replace "b" (utf-8 column 5..6) by "c", then append a line
    docs.did_change(
        uri,
        2,
        [
            {
                "range": {"start": {"line": 0, "character": 5}, "end": {"line": 0, "character": 6}},
                "text": "c",
            },
            {
                "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}},
                "text": "new\n",
            },
        ],
    )
    assert docs.open_document(path) == "a😀c\nnew\n"
    doc = docs.get(path)
    assert doc is not None and doc.version == 2
    docs.did_change(uri, 3, [{"text": "whole"}])
    assert docs.open_document(path) == "whole"
    docs.did_close(uri)
    assert docs.open_document(path) is None


def test_same_change_in_utf16_units(tmp_path: Path) -> None:
    docs = OpenDocuments(encoding="utf-16")
    uri = path_to_uri(tmp_path / "f.txt")
    docs.did_open(uri, "a😀b\n", 1)
    docs.did_change(
        uri,
        2,
        [
            {
                "range": {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 4}},
                "text": "c",
            },
        ],
    )
    assert docs.open_document(tmp_path / "f.txt") == "a😀c\n"


def test_documents_are_found_through_symlinks_and_uris_round_trip(tmp_path: Path) -> None:
    real = tmp_path / "dir with space" / "f.txt"
    real.parent.mkdir()
    real.write_text("disk")
    link = tmp_path / "link"
    link.symlink_to(real.parent)
    docs = OpenDocuments()
    uri = path_to_uri(real)
    assert uri_to_path(uri) == real
    assert uri_to_path("untitled:Untitled-1") is None
    docs.did_open(uri, "buffer", 3)
    assert docs.open_document(link / "f.txt") == "buffer"
    assert docs.open_document(tmp_path / "other.txt") is None


def test_text_in_range() -> None:
    docs = OpenDocuments(encoding="utf-16")
    text = "one\ntwo😀three\n"
    rng = {"start": {"line": 1, "character": 3}, "end": {"line": 1, "character": 5}}
    assert docs.text_in_range(text, rng) == "😀"

"""@-mentions: what counts as one and what is attached."""

from __future__ import annotations

from pathlib import Path

from ink_ls.agent.mentions import MentionSources, attach_mentions


async def test_punctuation_ranges_and_duplicates(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    got = await attach_mentions("see @a.py, then @a.py#L3 and @a.py again", tmp_path)
    assert got == "\n\n".join(
        [
            "see @a.py, then @a.py#L3 and @a.py again",
            '<file path="a.py">\none\ntwo\nthree\n</file>',
            '<file path="a.py" lines="3-3">\nthree\n</file>',
        ]
    )


async def test_nothing_that_is_not_an_existing_path(tmp_path: Path) -> None:
    (tmp_path / "host").write_text("x")
    for prompt in ("user@host", "@missing", "@@host", "a@host b", "@selection", "@problems"):
        assert await attach_mentions(prompt, tmp_path) == prompt


class _Buffers:
    def __init__(self, texts: dict[Path, str]) -> None:
        self.texts = texts

    def open_document(self, path: Path) -> str | None:
        return self.texts.get(path)


async def test_open_buffer_wins_and_sources_attach_once(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("on disk\n")

    async def selection() -> str | None:
        return "<selection>x</selection>"

    async def problems() -> str | None:
        return None  # nothing to attach: left as typed

    got = await attach_mentions(
        "@a.py @selection, @selection @problems",
        tmp_path,
        _Buffers({tmp_path / "a.py": "unsaved\n"}),
        MentionSources(selection=selection, problems=problems),
    )
    assert got == "\n\n".join(
        [
            "@a.py @selection, @selection @problems",
            '<file path="a.py">\nunsaved\n</file>',
            "<selection>x</selection>",
        ]
    )

"""@-mentions: what counts as one and what is attached."""

from __future__ import annotations

from pathlib import Path

from ink_ls.agent.mentions import attach_mentions


def test_punctuation_ranges_and_duplicates(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    got = attach_mentions("see @a.py, then @a.py#L3 and @a.py again", tmp_path)
    assert got == "\n\n".join(
        [
            "see @a.py, then @a.py#L3 and @a.py again",
            '<file path="a.py">\none\ntwo\nthree\n</file>',
            '<file path="a.py" lines="3-3">\nthree\n</file>',
        ]
    )


def test_nothing_that_is_not_an_existing_path(tmp_path: Path) -> None:
    (tmp_path / "host").write_text("x")
    for prompt in ("user@host", "@missing", "@@host", "a@host b"):
        assert attach_mentions(prompt, tmp_path) == prompt

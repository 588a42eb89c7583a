"""Project instructions: root first, nearer directories when first relevant, CLAUDE.md as the
fallback, the 32 KiB cap with its note, nothing from outside the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from ink_ls.agent.instructions import ProjectInstructions


def test_root_then_subdirectories_as_they_become_relevant(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("root rule\n")
    (tmp_path / "CLAUDE.md").write_text("ignored: AGENTS.md wins\n")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "CLAUDE.md").write_text("pkg rule\n")
    (tmp_path / "pkg" / "sub" / "AGENTS.md").write_text("sub rule\n")
    (tmp_path / "other").mkdir()
    found = ProjectInstructions(tmp_path)
    assert [f.path.name for f in found.start()] == ["AGENTS.md"]
    assert found.start() == []  # once
    assert found.relevant([Path("other/x.py")]) == []
    added = found.relevant([tmp_path / "pkg" / "sub" / "m.py"])
    assert [str(f.path.relative_to(tmp_path)) for f in added] == [
        "pkg/CLAUDE.md",
        "pkg/sub/AGENTS.md",
    ]
    assert found.relevant([tmp_path / "pkg" / "sub" / "n.py"]) == []
    text = found.render()
    assert text.index("root rule") < text.index("pkg rule") < text.index("sub rule")
    assert "## pkg/sub/AGENTS.md (applies to pkg/sub/ and below)" in text
    assert "ignored" not in text


def test_the_cap_cuts_with_a_note_and_outside_paths_add_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "a").mkdir(parents=True)
    (root / "AGENTS.md").write_text("r" * 100)
    (root / "a" / "AGENTS.md").write_text("a" * 100)
    (tmp_path / "AGENTS.md").write_text("outside\n")
    found = ProjectInstructions(root, cap=150)
    found.start()
    [cut] = found.relevant([root / "a" / "f.py", tmp_path / "x.py"])
    assert cut.truncated and cut.text.startswith("a" * 50)
    assert cut.text.endswith(
        "[a/AGENTS.md was cut here: project instructions are capped at "
        "0 KiB in all. Read a/AGENTS.md for the rest.]"
    )
    assert "outside" not in found.render()


def test_links_out_and_odd_files_are_not_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import os

    ws = tmp_path / "ws"
    (ws / "a").mkdir(parents=True)
    (ws / "b").mkdir()
    (tmp_path / "mine.md").write_text("PRIVATE")
    (ws / "AGENTS.md").symlink_to(tmp_path / "mine.md")
    os.mkfifo(ws / "a" / "AGENTS.md")  # would block a plain open
    (ws / "b" / "real.md").write_text("b rule\n")
    (ws / "b" / "AGENTS.md").symlink_to("real.md")  # a link inside the workspace is fine
    found = ProjectInstructions(ws)
    with caplog.at_level("WARNING"):
        assert found.start() == []
        assert found.relevant([ws / "a" / "x.py"]) == []
    assert [f.text for f in found.relevant([ws / "b" / "y.py"])] == ["b rule"]
    assert "PRIVATE" not in found.render()
    assert [r.getMessage() for r in caplog.records] == [
        f"project instructions: AGENTS.md was not read: it is a link to {tmp_path / 'mine.md'},"
        " outside the workspace",
        "project instructions: a/AGENTS.md was not read: it is not a regular file",
    ]

"""Project instructions: root first, nearer directories when first relevant, CLAUDE.md as the
fallback, the 32 KiB cap with its note, nothing from outside the workspace."""

from __future__ import annotations

from pathlib import Path

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

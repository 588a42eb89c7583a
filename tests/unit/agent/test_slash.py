"""Prompt files as slash commands: names, front matter, substitution, precedence."""

from __future__ import annotations

from pathlib import Path

from ink_ls.agent.slash import expand_prompt, prompt_commands, substitute


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_substitution_forms() -> None:
    assert substitute("Do $ARGUMENTS now", "a b") == "Do a b now"
    assert substitute("Do {{args}} now", "a b") == "Do a b now"
    assert substitute("$2 then $1 ($3)", "one 'two words'") == "two words then one ()"
    assert substitute("No placeholder.", "x y") == "No placeholder.\n\nARGUMENTS: x y"
    assert substitute("No placeholder.", "") == "No placeholder."


def test_front_matter_is_stripped_and_described(tmp_path: Path) -> None:
    _write(
        tmp_path / ".claude" / "commands" / "review.md",
        "---\ndescription: Review code\nargument-hint: <path>\n---\nReview $ARGUMENTS.\n",
    )
    [command] = prompt_commands(tmp_path, tmp_path / "home").values()
    assert (command.name, command.description, command.argument_hint) == (
        "review",
        "Review code",
        "<path>",
    )
    assert command.body == "Review $ARGUMENTS."


def test_names_namespaces_and_precedence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ws = tmp_path / "ws"
    _write(ws / ".gemini" / "commands" / "git" / "commit.toml", 'prompt = "commit {{args}}"\n')
    _write(ws / ".github" / "prompts" / "x.prompt.md", "github x")
    _write(ws / ".gemini" / "commands" / "x.toml", 'prompt = "gemini x"\n')
    _write(home / ".ink" / "commands" / "x.md", "user x")
    _write(ws / ".gemini" / "commands" / "broken.toml", "prompt = \n")
    commands = prompt_commands(ws, home)
    assert sorted(commands) == ["git:commit", "x"]
    assert commands["x"].body == "github x"
    assert expand_prompt("/git:commit all", ws, home) == "commit all"


def test_what_is_not_a_command_goes_as_typed(tmp_path: Path) -> None:
    _write(tmp_path / ".ink" / "commands" / "a.md", "A")
    for text in ("/b", "a", "see /a", "/a/b", "//a"):
        assert expand_prompt(text, tmp_path, tmp_path) == text
    assert expand_prompt("  /a  ", tmp_path, tmp_path) == "A"

"""Prompt files as slash commands through `ink-ls run`: each of the four formats reaches the
model as its body with the arguments filled in, front matter never does, the project beats
the user and `.ink` beats `.claude`, subfolders namespace, an unknown `/name` goes as typed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.test_cli_run import Run, env, fake, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.model_server import FakeModelServer, text, tool


def _user_text(request: dict[str, Any]) -> str:
    """What the model got as the user's last message."""
    [*_, last] = [m for m in request["messages"] if m["role"] == "user"]
    content = last["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")


async def _sent(ink: Callable[..., Any], fake: FakeModelServer, prompt: str) -> str:
    fake.push(text("ok"))
    run: Run = await ink("--json", "--approval", "auto", prompt)
    assert await run.finish() == 0, run.stderr
    return _user_text(fake.requests[-1])


def _write(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)


async def test_each_format_reaches_the_model_with_its_arguments(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    env["HOME"] = str(tmp_path / "home")
    _write(
        ws / ".claude" / "commands" / "review.md",
        "---\ndescription: Review code\nargument-hint: <path>\n---\nReview $ARGUMENTS for bugs.\n",
    )
    _write(ws / ".ink" / "commands" / "fix.md", "Fix issue $1 in $2, then run the tests.")
    _write(
        ws / ".github" / "prompts" / "explain.prompt.md",
        "---\nmode: agent\ndescription: Explain\n---\nExplain this code simply.",
    )
    _write(
        ws / ".gemini" / "commands" / "git" / "commit.toml",
        'description = "Commit message"\nprompt = """Write a commit message for {{args}}."""\n',
    )
    assert await _sent(ink, fake, "/review src/app.py") == "Review src/app.py for bugs."
    assert await _sent(ink, fake, '/fix 42 "the parser"') == (
        "Fix issue 42 in the parser, then run the tests."
    )
    assert await _sent(ink, fake, "/explain main.py") == (
        "Explain this code simply.\n\nARGUMENTS: main.py"
    )
    assert await _sent(ink, fake, "/git:commit the staged files") == (
        "Write a commit message for the staged files."
    )
    assert await _sent(ink, fake, "/nosuch thing") == "/nosuch thing"


async def test_project_beats_user_and_ink_beats_claude(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    env["HOME"] = str(home)
    _write(home / ".ink" / "commands" / "review.md", "the user's review")
    _write(home / ".claude" / "commands" / "mine.md", "the user's own command: $ARGUMENTS")
    _write(ws / ".claude" / "commands" / "review.md", "the project's claude review")
    assert await _sent(ink, fake, "/review") == "the project's claude review"
    _write(ws / ".ink" / "commands" / "review.md", "the project's ink review")
    assert await _sent(ink, fake, "/review") == "the project's ink review"
    assert await _sent(ink, fake, "/mine x y") == "the user's own command: x y"


async def test_builtins_compact_and_rewind_need_no_model(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    session = ("--session", "s-builtins")
    fake.push(tool("write", {"path": "a.txt", "content": "one\n"}), text("wrote"))
    run: Run = await ink("--json", "--approval", "auto", *session, "make a.txt")
    assert await run.finish() == 0, run.stderr
    asked = len(fake.requests)
    run = await ink("--json", "--approval", "auto", *session, "/rewind")
    assert await run.finish() == 0, run.stderr
    listing = "".join(e["text"] for e in run.events if e["type"] == "text_delta")
    assert listing.startswith("1. make a.txt — a.txt +1 −0") and "Rewind with /rewind N." in listing
    run = await ink("--json", "--approval", "auto", *session, "/rewind 1")
    assert await run.finish() == 0, run.stderr
    assert not (ws / "a.txt").exists()
    run = await ink("--json", "--approval", "auto", *session, "/compact")
    assert await run.finish() == 0, run.stderr
    said = "".join(e["text"] for e in run.events if e["type"] == "text_delta")
    assert said == "Nothing older than the latest turn to compact."
    assert len(fake.requests) == asked  # none of the three asked the model

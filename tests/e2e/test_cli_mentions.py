"""@-mentions through `ink-ls run`: a file, a line range and a folder listing follow the prompt
as typed; `user@host` and a path that does not exist attach nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.test_cli_run import README, Run, env, fake, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.model_server import FakeModelServer, text


def _user_text(request: dict[str, Any]) -> str:
    [*_, last] = [m for m in request["messages"] if m["role"] == "user"]
    content = last["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")


async def test_files_ranges_and_folders_are_attached(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("".join(f"line {i}\n" for i in range(1, 31)))
    (ws / "src" / "sub").mkdir()
    prompt = "Compare @README.md with @src/app.py#L10-12, see @src/ and mail user@host @nope.txt"
    fake.push(text("ok"))
    run: Run = await ink("--json", "--approval", "auto", prompt)
    assert await run.finish() == 0, run.stderr
    assert _user_text(fake.requests[0]) == "\n\n".join(
        [
            prompt,
            f'<file path="README.md">\n{README.rstrip()}\n</file>',
            '<file path="src/app.py" lines="10-12">\nline 10\nline 11\nline 12\n</file>',
            '<folder path="src/">\napp.py\nsub/\n</folder>',
        ]
    )


async def test_a_prompt_without_mentions_goes_as_typed(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    fake.push(text("ok"))
    run: Run = await ink("--json", "--approval", "auto", "email me at me@example.com @ home")
    assert await run.finish() == 0, run.stderr
    assert _user_text(fake.requests[0]) == "email me at me@example.com @ home"


async def test_editor_only_mentions_stay_as_typed_and_prompt_files_mention(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    (ws / ".ink" / "commands").mkdir(parents=True)
    (ws / ".ink" / "commands" / "explain.md").write_text("Explain @README.md to $ARGUMENTS.")
    prompt = "fix @selection and @problems"  # the terminal has neither
    fake.push(text("ok"), text("ok"))
    run: Run = await ink("--json", "--approval", "auto", prompt)
    assert await run.finish() == 0, run.stderr
    assert _user_text(fake.requests[0]) == prompt
    run = await ink("--json", "--approval", "auto", "/explain a newcomer")
    assert await run.finish() == 0, run.stderr
    assert _user_text(fake.requests[1]) == "\n\n".join(
        [
            "Explain @README.md to a newcomer.",
            f'<file path="README.md">\n{README.rstrip()}\n</file>',
        ]
    )


async def test_clear_starts_afresh_in_the_same_session(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    fake.push(text("hi there"))
    run: Run = await ink("--json", "--approval", "auto", "--session", "s-clear", "hello")
    assert await run.finish() == 0, run.stderr
    run = await ink("--json", "--approval", "auto", "--session", "s-clear", "/clear")
    assert await run.finish() == 0, run.stderr
    said = "".join(e["text"] for e in run.events if e["type"] == "text_delta")
    assert said == "Started a fresh conversation (2 earlier messages are no longer sent)."
    assert len(fake.requests) == 1  # no model request for /clear
    fake.push(text("ok"))
    run = await ink("--json", "--approval", "auto", "--session", "s-clear", "what now?")
    assert await run.finish() == 0, run.stderr
    users = [m for m in fake.requests[-1]["messages"] if m["role"] == "user"]
    assert "hello" not in str(users) and "/clear" in str(users[0])
    assert _user_text(fake.requests[-1]) == "what now?"

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

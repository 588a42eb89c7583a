"""Slash commands through the server: `ink/commands` lists the built-ins and the prompt files of
all four formats (workspace and user), and a prompt file's body is what the model receives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ink_ls.protocol import methods
from tests.e2e.conftest import Starter
from tests.fakes.model_server import FakeModelServer, text

FILES = {
    ".ink/commands/fix.md": (
        "---\ndescription: Fix it\nargument-hint: <what>\n---\nFix $ARGUMENTS.\n"
    ),
    ".claude/commands/review.md": "---\ndescription: Review code\n---\nReview $1 carefully.\n",
    ".github/prompts/explain.prompt.md": "---\ndescription: Explain\n---\nExplain {{args}}.\n",
    ".gemini/commands/git/commit.toml": 'description = "Commit"\nprompt = "Write a commit."\n',
}


def user_text(request: dict[str, Any]) -> str:
    """What the model got as the user's last message."""
    [*_, last] = [m for m in request["messages"] if m["role"] == "user"]
    content = last["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")


def write_prompt_files(root: Path) -> None:
    """The four formats under `root` (a workspace or a home folder)."""
    for rel, body in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")


async def test_commands_lists_builtins_and_every_format(
    start: Starter, workspace: Path, tmp_path: Path
) -> None:
    write_prompt_files(workspace)
    home = tmp_path / "home"
    (home / ".claude" / "commands").mkdir(parents=True)
    (home / ".claude" / "commands" / "review.md").write_text("user review\n")
    (home / ".claude" / "commands" / "mine.md").write_text("---\ndescription: Mine\n---\nx\n")
    client = await start(env={"HOME": str(home)})
    result = await client.ink(methods.COMMANDS_LIST, {})
    listed = {c["name"]: c for c in result["commands"]}
    assert [c["name"] for c in result["commands"][:3]] == ["compact", "clear", "rewind"]
    assert listed["rewind"]["source"] == "builtin"
    assert listed["fix"] == {
        "name": "fix",
        "description": "Fix it",
        "argumentHint": "<what>",
        "source": ".ink/commands/fix.md",
    }
    assert listed["review"]["source"] == ".claude/commands/review.md"  # project beats user
    assert listed["explain"]["source"] == ".github/prompts/explain.prompt.md"
    assert listed["git:commit"]["source"] == ".gemini/commands/git/commit.toml"
    assert listed["mine"]["source"] == "~/.claude/commands/mine.md"


async def test_prompt_files_reach_the_model_expanded(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    write_prompt_files(workspace)
    client = await start()
    cases = [
        ("/fix the bug", "Fix the bug."),
        ("/review src/a.py", "Review src/a.py carefully."),
        ("/explain closures", "Explain closures."),
        ("/git:commit all", "Write a commit.\n\nARGUMENTS: all"),
        ("/unknown thing", "/unknown thing"),
    ]
    for typed, _ in cases:
        model.push(text("ok"))
        result = await client.prompt(typed)
        assert result["stopReason"] == "end_turn"
    sent = [user_text(r) for r in model.requests]
    assert sent == [want for _, want in cases]


async def test_clear_and_compact_are_done_without_the_model(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start()
    model.push(text("hi"))
    first = await client.prompt("hello")
    sid = first["sessionId"]
    cleared = await client.prompt("/clear", sessionId=sid)
    assert cleared["stopReason"] == "end_turn"
    assert (
        cleared["text"] == "Started a fresh conversation (2 earlier messages are no longer sent)."
    )
    compacted = await client.prompt("/compact", sessionId=sid)
    assert compacted["text"] == "Nothing older than the latest turn to compact."
    assert len(model.requests) == 1
    model.push(text("ok"))
    await client.prompt("and now?", sessionId=sid)
    users = [m for m in model.requests[-1]["messages"] if m["role"] == "user"]
    assert "hello" not in str(users) and "/clear" in str(users[0])
    assert user_text(model.requests[-1]) == "and now?"
    chunks = [
        u["update"]["content"]["text"]
        for u in client.updates
        if u["turnId"] == cleared["turnId"]
        and u["update"]["sessionUpdate"] == "agent_message_chunk"
    ]
    assert chunks == [cleared["text"]]

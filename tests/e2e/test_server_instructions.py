"""Project instructions through the server: the root's AGENTS.md from the first request, a
subdirectory's (CLAUDE.md where it has no AGENTS.md) once the agent touches a file there, and
the client told which files were loaded, once per session."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Starter
from tests.fakes.model_server import FakeModelServer, text, tool


def system_prompt(request: dict[str, object]) -> str:
    messages = request["messages"]
    assert isinstance(messages, list) and messages[0]["role"] == "system"
    return str(messages[0]["content"])


async def test_agents_md_reach_the_system_prompt_when_relevant(
    start: Starter, model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Run tests with `make check`.\n", encoding="utf-8")
    (workspace / "pkg" / "deep").mkdir(parents=True)
    (workspace / "pkg" / "AGENTS.md").write_text("pkg: use tabs.\n", encoding="utf-8")
    (workspace / "pkg" / "deep" / "CLAUDE.md").write_text("deep: no globals.\n")
    (workspace / "pkg" / "deep" / "mod.py").write_text("x = 1\n", encoding="utf-8")
    (workspace / "other").mkdir()
    (workspace / "other" / "AGENTS.md").write_text("other: never loaded.\n")
    model.push(tool("read", {"path": "pkg/deep/mod.py"}), text("x is 1."), text("Still 1."))
    client = await start(approval="auto")
    first = await client.prompt("what is x in pkg/deep/mod.py?")
    assert first["stopReason"] == "end_turn"

    before, after = model.requests[0], model.requests[1]
    assert "Run tests with `make check`." in system_prompt(before)
    assert "pkg: use tabs." not in system_prompt(before)
    prompt = system_prompt(after)
    assert (
        prompt.index("make check")
        < prompt.index("pkg: use tabs.")
        < prompt.index("deep: no globals.")
    )
    assert "## pkg/deep/CLAUDE.md (applies to pkg/deep/ and below)" in prompt
    assert "other: never loaded." not in prompt

    loaded = [
        u["update"] for u in client.updates if u["update"]["sessionUpdate"] == "instructions_loaded"
    ]
    assert [u["paths"] for u in loaded] == [
        [str(workspace / "AGENTS.md")],
        [str(workspace / "pkg" / "AGENTS.md"), str(workspace / "pkg" / "deep" / "CLAUDE.md")],
    ]
    kinds = client.kinds("t1")
    assert kinds.index("instructions_loaded") < kinds.index("usage_update")

    second = await client.prompt("and now?", sessionId=first["sessionId"])
    assert second["stopReason"] == "end_turn"
    assert "deep: no globals." in system_prompt(model.requests[2])  # still there
    assert "instructions_loaded" not in client.kinds("t2")  # told once per session

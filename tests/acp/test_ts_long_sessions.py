"""A long ACP session through a real `ink-ls --acp` and the TypeScript SDK client: project
instructions (AGENTS.md / CLAUDE.md) reach the model as in the editor and the terminal, the
conversation is compacted before it outgrows the window, and a request the endpoint refuses
as too long is compacted and sent again (the cases the LSP and CLI suites have)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.acp.conftest import SERVER
from tests.acp.test_ts_client import HERE, node
from tests.fakes.model_server import FakeModelServer, text, tool
from tests.fakes.windowed import WindowedModel, unpaired_calls

WINDOW = 8_192


def run_prompts(prompts: list[str], workspace: Path, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [node(), str(HERE / "prompts.mjs"), str(workspace), "--", *SERVER],
        env={**env, "PROMPTS_JSON": json.dumps(prompts)},
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"prompts.mjs failed:\n{done.stderr[-4000:]}"
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def system_prompt(payload: dict[str, Any]) -> str:
    first = payload["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


def records(env: dict[str, str], session_id: str) -> list[dict[str, Any]]:
    path = Path(env["INK_STATE_DIR"]) / "sessions" / f"{session_id}.jsonl"
    return [json.loads(line) for line in path.read_text().split("\n") if line]


def files_to_check(workspace: Path, count: int = 3) -> list[str]:
    names = []
    for i in range(count):
        name = f"f{i}.txt"
        (workspace / name).write_text("".join(f"line {n} of {i}\n" for n in range(150)))
        names.append(name)
    return names


def test_agents_md_reach_the_model_over_acp(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    (workspace / "AGENTS.md").write_text("Run tests with `make check`.\n")
    (workspace / "pkg" / "deep").mkdir(parents=True)
    (workspace / "pkg" / "AGENTS.md").write_text("pkg: use tabs.\n")
    (workspace / "pkg" / "deep" / "CLAUDE.md").write_text("deep: no globals.\n")
    (workspace / "pkg" / "deep" / "mod.py").write_text("x = 1\n")
    (workspace / "other").mkdir()
    (workspace / "other" / "AGENTS.md").write_text("other: never loaded.\n")
    model.push(tool("read", {"path": "pkg/deep/mod.py"}), text("x is 1."), text("Still 1."))

    report = run_prompts(["what is x in pkg/deep/mod.py?", "and now?"], workspace, acp_env)

    assert report["stopReasons"] == ["end_turn", "end_turn"]
    before, after, second = (system_prompt(r) for r in model.requests[:3])
    assert "Run tests with `make check`." in before and "pkg: use tabs." not in before
    assert after.index("make check") < after.index("pkg: use tabs.") < after.index("deep: no")
    assert "## pkg/deep/CLAUDE.md (applies to pkg/deep/ and below)" in after
    assert "other: never loaded." not in after
    assert "deep: no globals." in second  # kept for the rest of the session


def test_a_long_acp_session_is_compacted_before_it_outgrows_the_window(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    files = files_to_check(workspace)
    scripted = WindowedModel(WINDOW, reads=1)
    model.default = scripted
    prompts = [f"check {files[n % len(files)]} (turn {n})" for n in range(40)]

    report = run_prompts(prompts, workspace, {**acp_env, "INK_CONTEXT_WINDOW": str(WINDOW)})

    assert report["stopReasons"] == ["end_turn"] * len(prompts)
    assert not [s for s in scripted.seen if s.refused]  # nothing ever outgrew the window
    assert [s for s in scripted.seen if s.summary], "no compaction in 40 prompts"
    conversation = scripted.conversation()
    assert all(not unpaired_calls(s.payload) for s in conversation)
    users = [m["content"] for m in conversation[-1].payload["messages"] if m["role"] == "user"]
    assert users[0].startswith("[Summary of the earlier part")
    assert not any("(turn 0)" in u for u in users)
    saved = records(acp_env, report["sessionId"])
    compactions = [r for r in saved if r["type"] == "compaction"]
    assert compactions and {c["reason"] for c in compactions} == {"threshold"}
    assert sum(1 for r in saved if r["type"] == "message") == len(prompts) * 4


def test_a_request_refused_as_too_long_is_compacted_and_sent_again_over_acp(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    files = files_to_check(workspace)
    scripted = WindowedModel(WINDOW, reads=1)
    model.default = scripted
    prompts = [f"check {files[n % len(files)]} (turn {n})" for n in range(30)]

    # the setting overstates the window: only the endpoint's refusal tells
    env = {**acp_env, "INK_CONTEXT_WINDOW": str(4 * WINDOW)}
    report = run_prompts(prompts, workspace, env)

    assert report["stopReasons"] == ["end_turn"] * len(prompts)
    refused = [i for i, s in enumerate(scripted.seen) if s.refused]
    assert refused
    for i in refused:  # each refusal: a summary, then the same request once more, accepted
        assert scripted.seen[i + 1].summary and not scripted.seen[i + 2].refused
    saved = records(acp_env, report["sessionId"])
    assert {r["reason"] for r in saved if r["type"] == "compaction"} == {"overflow"}

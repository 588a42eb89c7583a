"""ACP parity through the official TypeScript SDK client (`scripted.mjs`): a command's output
streams into its tool call while it runs, the slash commands (built-ins and a prompt file of
each of the four formats) arrive as `available_commands_update`, and `/clear` and `/compact`
are done without a model turn."""

from __future__ import annotations

import json
from pathlib import Path

from tests.acp.test_ts_trust import _run
from tests.e2e.test_server_slash import write_prompt_files
from tests.fakes.model_server import FakeModelServer, text, tool

LOOP = "for i in 1 2 3; do echo $i; sleep 1; done"


def test_command_output_streams_before_the_command_ends(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    model.push(tool("bash", {"command": LOOP}), text("counted"))
    report = _run(
        {"cwd": str(workspace), "mode": "auto", "prompts": ["count to three"]}, acp_env, tmp_path
    )
    assert report["stops"] == ["end_turn"]
    [loop] = [u["toolCallId"] for u in report["updates"] if u["sessionUpdate"] == "tool_call"]
    calls = [
        (t, u)
        for u, t in zip(report["updates"], report["times"], strict=True)
        if u["sessionUpdate"] == "tool_call_update" and u["toolCallId"] == loop
    ]
    live = [(t, json.dumps(u.get("content"))) for t, u in calls if u.get("content")]
    [ended] = [t for t, u in calls if u.get("status") == "completed"]
    first = next(t for t, c in live if "1" in c and "3" not in c)  # 1 printed, 3 not yet
    assert ended - first >= 1500, (first, ended)  # the loop still had two seconds to go
    assert any("1\\n2" in c and "3" not in c for _, c in live)


def test_available_commands_has_builtins_and_every_format(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    write_prompt_files(workspace)
    acp_env["HOME"] = str(tmp_path / "home")
    model.push(text("first answer"))
    report = _run(
        {"cwd": str(workspace), "mode": "auto", "prompts": ["hello", "/clear", "/fix it"]},
        acp_env,
        tmp_path,
    )
    [listed] = [u for u in report["updates"] if u["sessionUpdate"] == "available_commands_update"]
    names = [c["name"] for c in listed["availableCommands"]]
    assert names[:3] == ["compact", "clear", "rewind"]
    assert {"fix", "review", "explain", "git:commit"} <= set(names)
    assert report["stops"] == ["end_turn", "end_turn", "end_turn"]
    said = "".join(
        u["content"]["text"]
        for u in report["updates"]
        if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert "Started a fresh conversation (2 earlier messages are no longer sent)." in said
    # after /clear the model sees the note, then the expanded prompt file, not "hello"
    users = [m for m in model.requests[-1]["messages"] if m["role"] == "user"]
    assert "hello" not in json.dumps(users)
    assert "/clear" in json.dumps(users[0]) and json.dumps(users[-1]).count("Fix it.") == 1


def test_a_terminal_showing_client_gets_terminal_content_and_chunks(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str], tmp_path: Path
) -> None:
    model.push(tool("bash", {"command": LOOP}), text("counted"))
    caps = {
        "fs": {"readTextFile": False, "writeTextFile": False},
        "terminal": True,
        "_meta": {"terminal_output": True},
    }
    report = _run(
        {"cwd": str(workspace), "mode": "auto", "caps": caps, "prompts": ["count"]},
        acp_env,
        tmp_path,
    )
    [start] = [u for u in report["updates"] if u["sessionUpdate"] == "tool_call"]
    call = start["toolCallId"]
    assert start["content"] == [{"type": "terminal", "terminalId": call}]
    assert start["_meta"] == {"terminal_info": {"terminal_id": call}}
    timed = [
        (t, u.get("_meta") or {})
        for u, t in zip(report["updates"], report["times"], strict=True)
        if u["sessionUpdate"] == "tool_call_update" and u["toolCallId"] == call
    ]
    chunks = [(t, m["terminal_output"]["data"]) for t, m in timed if "terminal_output" in m]
    [(ended, exit_meta)] = [(t, m["terminal_exit"]) for t, m in timed if "terminal_exit" in m]
    assert "".join(data for _, data in chunks) == "1\n2\n3\n"
    assert exit_meta == {"terminal_id": call, "exit_code": 0, "signal": None}
    assert ended - chunks[0][0] >= 1500  # "1" arrived two seconds before the end

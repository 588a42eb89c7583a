"""`ink-ls run` with a `task` call: the sub-agent's calls appear in `--json` tagged with
`parent_tool_call_id`, and indented under their task in the plain (non-terminal) view."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.model_server import FakeModelServer, Reply, text, tool

WAIT = 30.0


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        srv.push(
            tool(
                "task",
                {"prompt": "Read README.md and say how to start.", "description": "survey"},
                call_ids=["call_1"],
            ),
            Reply(
                text="CHILD THINKING",
                tool_calls=[("read", {"path": "README.md"})],
                call_ids=["call_1"],
            ),
            text("CHILD ANSWER: make start"),
            text("Run `make start`."),
        )
        yield srv


async def run_ink(tmp_path: Path, fake: FakeModelServer, *args: str) -> tuple[int, str, str]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("# Demo\n\nStart it with `make start`.\n")
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        INK_STATE_DIR=str(tmp_path / "state"),
        INK_BASE_URL=fake.base_url,
        INK_MODEL="fake-model",
        INK_API_KEY="sk-sub-e2e",
        PYTHONUNBUFFERED="1",
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ink_ls",
        "run",
        "--cwd",
        str(ws),
        "--approval",
        "auto",
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), WAIT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_json_lines_tag_the_sub_agents_calls_with_their_task(
    tmp_path: Path, fake: FakeModelServer
) -> None:
    code, out, err = await run_ink(tmp_path, fake, "--json", "how do I start it?")
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    tools = [
        (e["type"], e["tool_call_id"], e.get("parent_tool_call_id"))
        for e in events
        if e["type"].startswith("tool_")
    ]
    assert tools == [
        ("tool_start", "call_1", None),
        ("tool_running", "call_1", None),
        ("tool_start", "call_1/call_1", "call_1"),
        ("tool_running", "call_1/call_1", "call_1"),
        ("tool_settled", "call_1/call_1", "call_1"),
        ("tool_end", "call_1/call_1", "call_1"),
        ("tool_settled", "call_1", None),
        ("tool_end", "call_1", None),
    ]
    # the sub-agent's text is tagged too; its message/run ends are not printed
    child_text = "".join(
        e["text"] for e in events if e["type"] == "text_delta" and e.get("parent_tool_call_id")
    )
    assert child_text == "CHILD THINKINGCHILD ANSWER: make start"
    assert [e["type"] for e in events].count("run_end") == 1
    assert [e["type"] for e in events].count("message_end") == 2
    assert events[-1]["text"] == "Run `make start`."
    # ...but the tokens of its two replies are: as `usage` events, and in the run's total
    usage = [(e["usage"], e["parent_tool_call_id"]) for e in events if e["type"] == "usage"]
    one = {"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 0}
    assert usage == [(one, "call_1")] * 2
    assert events[-1]["usage"] == {"input_tokens": 40, "output_tokens": 20, "cache_read_tokens": 0}


async def test_the_plain_view_prints_sub_agent_calls_under_their_task(
    tmp_path: Path, fake: FakeModelServer
) -> None:
    code, out, err = await run_ink(tmp_path, fake, "how do I start it?")
    assert code == 0, err
    lines = out.splitlines()
    task = next(i for i, ln in enumerate(lines) if ln.startswith("✓ task: survey"))
    assert lines[task + 1].startswith("  ✓ read README.md")
    assert "CHILD" not in out
    assert lines[-1] == "Run `make start`."

"""`ink-ls mcp list` and MCP tools in `ink-ls run`, as real processes."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from tests.fakes.model_server import FakeModelServer, text, tool

PY = sys.executable
REPO = Path(__file__).resolve().parents[2]
WAIT = 60.0
TIME = {"command": PY, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}


def _env(tmp_path: Path, model: FakeModelServer | None = None) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        INK_STATE_DIR=str(tmp_path / "state"),
        PYTHONPATH=str(REPO),
        INK_API_KEY="sk-cli-mcp-secret",
    )
    if model is not None:
        env.update(INK_BASE_URL=model.base_url, INK_MODEL="fake-model")
    return env


async def _ink(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        PY,
        "-m",
        "ink_ls",
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


async def test_mcp_list_shows_each_server_and_why_one_failed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": TIME,
                    "broken": {"command": PY, "args": ["-c", "import sys; sys.exit('no db')"]},
                }
            }
        )
    )
    code, out, err = await _ink(
        "mcp", "list", "--cwd", str(ws), "--trust-workspace", "-v", env=_env(tmp_path)
    )
    assert code == 1, err
    lines = out.splitlines()
    time_line = next(ln for ln in lines if ln.startswith("time\t"))
    assert time_line.split("\t")[1].startswith("connected (")
    assert time_line.split("\t")[2:4] == ["2 tools", "workspace"]
    assert "  mcp__time__get_current_time" in lines
    broken = lines.index(next(ln for ln in lines if ln.startswith("broken\t")))
    assert lines[broken].split("\t")[1] == "failed"
    assert lines[broken + 1] == "  the server exited before it was ready; stderr: no db"

    for extra in ((), ("--approval", "auto")):  # auto does not trust the workspace
        code, out, err = await _ink("mcp", "list", "--cwd", str(ws), *extra, env=_env(tmp_path))
        assert code == 0  # stdin is not a terminal: no one to ask, the servers stay off
        assert out.splitlines()[0].split("\t")[:2] == ["time", "not started"]
        assert "the workspace is not trusted and" in out and "--trust-workspace" in out


async def test_run_calls_a_user_configured_server(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    config = tmp_path / "config" / "ink-ls" / "mcp.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"mcpServers": {"time": {**TIME, "trusted": True}}}))
    with FakeModelServer() as model:
        model.push(
            tool("mcp__time__get_current_time", {"timezone": "Europe/Berlin"}),
            text("It is evening in Berlin."),
        )
        code, out, err = await _ink(
            "run", "--json", "--cwd", str(ws), "what time is it?", env=_env(tmp_path, model)
        )
        assert code == 0, err
        events = [json.loads(line) for line in out.splitlines()]
        [end] = [e for e in events if e["type"] == "tool_end"]
        assert end["tool_name"] == "mcp__time__get_current_time" and not end["is_error"]
        assert '"timezone": "Europe/Berlin"' in end["content"][0]["text"]
        sent = model.requests[0]["tools"]
        assert "mcp__time__convert_time" in [t["function"]["name"] for t in sent]

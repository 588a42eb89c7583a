"""ACP's `mcpServers`: a client's MCP server becomes tools of the session (`session/new`),
its calls are asked about through `session/request_permission` and reach the model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import EnvVariable, McpServerStdio

from tests.acp.conftest import SERVER
from tests.acp.test_python_client import CAPS, RecordingClient
from tests.fakes.model_server import FakeModelServer, text, tool


async def test_a_clients_mcp_server_is_a_tool_of_the_session(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    client = RecordingClient(workspace, {"mcp__time__get_current_time": "allow_once"})
    time = McpServerStdio(
        name="time",
        command=sys.executable,
        args=["-m", "mcp_server_time", "--local-timezone", "UTC"],
        env=[EnvVariable(name="TZ", value="UTC")],
    )
    gone = McpServerStdio(name="gone", command=str(workspace / "no-such-server"), args=[], env=[])
    model.push(tool("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"}), text("done"))
    async with spawn_agent_process(client, *SERVER, env=acp_env, cwd=workspace) as (conn, proc):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=CAPS)
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[time, gone])).session_id
        done = await conn.prompt(session_id=sid, prompt=[text_block("time in Tokyo?")])
        assert done.stop_reason == "end_turn" and proc.returncode is None
    sent = [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert "mcp__time__convert_time" in sent and not any("gone" in n for n in sent)
    [asked] = client.permissions
    assert "mcp__time__get_current_time" in asked["title"]
    [result] = [m for m in model.requests[1]["messages"] if m["role"] == "tool"]
    assert json.loads(result["content"])["timezone"] == "Asia/Tokyo"

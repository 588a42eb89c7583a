"""`ink-ls --acp` with the Python SDK's client against DeepSeek's thinking-mode stream replayed
byte for byte: the reasoning arrives as `agent_thought_chunk`s, the read runs, the follow-up
carries `reasoning_content` (the fake refuses it otherwise, as DeepSeek does), the answer is
exact; an error inside the stream ends the prompt without an answer."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block

from tests.acp.conftest import SERVER
from tests.acp.test_python_client import CAPS, RecordingClient
from tests.fakes.dialects import ANSWER, IN_STREAM_ERRORS, NOTES, THOUGHT, deepseek
from tests.fakes.model_server import FakeModelServer, Reply


async def test_deepseek_reasoning_over_acp(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    (workspace / "notes.txt").write_text(NOTES)
    dialect = deepseek()
    model.push(*dialect.replies())
    client = RecordingClient(workspace, {})
    async with spawn_agent_process(client, *SERVER, env=acp_env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=CAPS)
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="readonly")
        result = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block("what do the notes say?")]), 30
        )
    assert result.stop_reason == "end_turn"
    kinds = [u["sessionUpdate"] for u in client.updates]
    thought = "".join(
        u["content"]["text"] for u in client.updates if u["sessionUpdate"] == "agent_thought_chunk"
    )
    assert thought == THOUGHT
    assert kinds.index("agent_thought_chunk") < kinds.index("tool_call")
    answer = "".join(
        u["content"]["text"] for u in client.updates if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert answer == ANSWER
    assert dialect.required(model.requests[1]) is None


async def test_an_error_inside_the_stream_over_acp(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    model.push(Reply(raw=IN_STREAM_ERRORS["llama.cpp"]))
    client = RecordingClient(workspace, {})
    async with spawn_agent_process(client, *SERVER, env=acp_env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=CAPS)
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        try:
            result = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[text_block("what do the notes say?")]), 30
            )
        except RequestError as exc:
            assert "the slot crashed mid-reply" in str(exc.data) + str(exc)
        else:
            raise AssertionError(f"the prompt ended {result.stop_reason} after a stream error")

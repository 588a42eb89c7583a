"""`ink-ls --acp` on raw stdio (the SDK clients cannot send malformed lines): every bad line is
answered with the JSON-RPC error it deserves and the agent keeps serving, a `null` line does
not end the connection, an oversized line is dropped and answered, and nothing a client sends
puts a traceback on stderr."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION

from ink_ls.acp.wire import MAX_LINE
from tests.acp.conftest import SERVER
from tests.fakes.model_server import FakeModelServer, text

WAIT = 30.0


class RawClient:
    """Lines in, messages out: the agent over its own pipes."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    async def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line if line.endswith(b"\n") else line + b"\n")
        await self.proc.stdin.drain()

    async def request(self, msg_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
        await self.send(json.dumps(body).encode())
        while True:
            message = await self.read()
            if message.get("id") == msg_id and "method" not in message:
                return message

    async def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), WAIT)
        assert line, "the agent closed its stdout"
        message: dict[str, Any] = json.loads(line)
        return message


async def test_malformed_lines_are_answered_and_the_agent_keeps_serving(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    proc = await asyncio.create_subprocess_exec(
        *SERVER,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=acp_env,
        cwd=workspace,
        limit=2**20,
    )
    client = RawClient(proc)
    try:
        init = await client.request(1, "initialize", {"protocolVersion": PROTOCOL_VERSION})
        assert init["result"]["protocolVersion"] == PROTOCOL_VERSION
        cases: list[tuple[bytes, int, object]] = [
            (b"null", -32600, None),
            (b"42", -32600, None),
            (b'"a string"', -32600, None),
            (b"[]", -32600, None),
            (b'[{"jsonrpc":"2.0","id":3,"method":"initialize"}]', -32600, None),
            (b"{not json", -32700, None),
            (b"\xff\xfe{}", -32700, None),
            (b'{"jsonrpc":"2.0","id":4,"method":5}', -32600, 4),
            (b'{"id":5,"method":"session/new","params":{}}', -32600, 5),
            (b'{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"}', -32600, None),
            (b"[" * 1000 + b"]" * 1000, -32700, None),
        ]
        for line, code, answer_id in cases:
            await client.send(line)
            answer = await client.read()
            assert answer["id"] == answer_id, line
            assert answer["error"]["code"] == code, (line, answer)
        # one line over the cap (the agent drops it as it comes, then answers)
        await client.send(b'{"jsonrpc":"2.0","id":9,"method":"x","params":"' + b"a" * MAX_LINE)
        answer = await client.read()
        assert answer["error"]["code"] == -32600 and "over 50 MiB" in answer["error"]["message"]
        # a request of a method that does not exist, a request with bad params
        missing = await client.request(10, "no/such/method", {})
        assert missing["error"]["code"] == -32601
        bad = await client.request(11, "session/new", {"cwd": 5})
        assert bad["error"]["code"] == -32602
        # still serving: a whole turn
        model.push(text("still here"))
        new = await client.request(12, "session/new", {"cwd": str(workspace), "mcpServers": []})
        sid = new["result"]["sessionId"]
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "hello"}]}
        done = await client.request(13, "session/prompt", prompt)
        assert done["result"]["stopReason"] == "end_turn"
        assert proc.returncode is None
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        code = await asyncio.wait_for(proc.wait(), WAIT)
        assert proc.stderr is not None
        stderr = (await proc.stderr.read()).decode()
    assert code == 0
    assert "Traceback" not in stderr, stderr

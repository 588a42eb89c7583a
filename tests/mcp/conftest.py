"""MCP test harness: real servers (mcp-server-time, mcp-server-git from PyPI, server-everything
from npm via `tests/mcp/setup-tests`, the hostile fake), an agent on a scripted loopback model.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ink_ls.agent.approval import ApprovalGate, ApprovalQuestion, Choice
from ink_ls.agent.events import AgentEvent
from ink_ls.agent.loop import Agent, AgentOptions
from ink_ls.core.config import ApprovalMode, ModelSettings
from ink_ls.core.signal import CancelSignal
from ink_ls.core.tool import ToolRegistry
from ink_ls.mcp.config import parse_servers
from ink_ls.mcp.hub import McpHub
from ink_ls.model.client import OpenAIClient
from tests.fakes.model_server import FakeModelServer

PY = sys.executable
REPO = Path(__file__).resolve().parents[2]
EVERYTHING = (
    REPO / "tests/mcp/node_modules/@modelcontextprotocol/server-everything" / "dist/index.js"
)
WAIT = 30.0


def time_server() -> dict[str, Any]:
    return {"command": PY, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}


def git_server(repo: Path) -> dict[str, Any]:
    return {"command": PY, "args": ["-m", "mcp_server_git", "--repository", str(repo)]}


def hostile(log: Path | None = None, *extra: str) -> dict[str, Any]:
    args = ["-m", "tests.fakes.mcp_hostile", *extra]
    if log is not None:
        args += ["--log", str(log)]
    return {"command": PY, "args": args, "cwd": str(REPO)}


def everything_stdio() -> dict[str, Any]:
    assert EVERYTHING.is_file(), "run tests/mcp/setup-tests (installs server-everything)"
    return {"command": node(), "args": [str(EVERYTHING), "stdio"]}


def node() -> str:
    found = shutil.which("node")
    if found:
        return found
    for cand in sorted((REPO / ".e2e-cache").glob("**/bin/node")):
        return str(cand)
    raise AssertionError("no node on PATH or under .e2e-cache (run editors/vscode setup-tests)")


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git = ["git", "-C", str(path), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run([*git[:3], "init", "-q", "-b", "main"], check=True)
    (path / "notes.txt").write_text("first line\n")
    subprocess.run([*git, "add", "notes.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "Add the notes"], check=True)
    return path


def hub_of(servers: dict[str, Any], root: Path, **kwargs: Any) -> McpHub:
    configs, problems = parse_servers(servers, "user", root=root)
    assert problems == []
    return McpHub(configs, **kwargs)


@dataclass
class Asker:
    """A scripted approval prompter: answers in order, records every question."""

    answers: list[Choice] = field(default_factory=list)
    questions: list[ApprovalQuestion] = field(default_factory=list)

    async def __call__(self, question: ApprovalQuestion, signal: CancelSignal) -> Choice | None:
        self.questions.append(question)
        return self.answers.pop(0) if self.answers else "reject"


@dataclass
class Run:
    """One agent over a hub and the loopback model; `events` records everything emitted."""

    hub: McpHub
    model: FakeModelServer
    cwd: Path
    mode: ApprovalMode = "auto"
    asker: Asker = field(default_factory=Asker)
    events: list[tuple[float, AgentEvent]] = field(default_factory=list)
    grace: float = 3.0
    _new: asyncio.Event = field(default_factory=asyncio.Event)

    def _on_event(self, event: AgentEvent) -> None:
        self.events.append((time.monotonic(), event))
        self._new.set()

    async def wait_event(self, kind: str, timeout: float = WAIT) -> Any:
        """The first event of `kind`, waiting for it to come."""
        async with asyncio.timeout(timeout):
            while True:
                found = self.of(kind)
                if found:
                    return found[0]
                self._new.clear()
                await self._new.wait()

    def agent(self) -> Agent:
        settings = ModelSettings(base_url=self.model.base_url, model="fake", max_retries=0)
        return Agent(
            OpenAIClient(settings),
            ToolRegistry(sources=[self.hub]),
            AgentOptions(cwd=self.cwd, grace_seconds=self.grace),
            gate=ApprovalGate(self.mode, self.asker),
            on_event=self._on_event,
        )

    def of(self, kind: str) -> list[Any]:
        return [e for _, e in self.events if e.type == kind]

    def results(self) -> dict[str, str]:
        """tool name → text of its result (the last one)."""
        return {
            e.tool_name: "".join(getattr(b, "text", "") for b in e.content)
            for e in self.of("tool_end")
        }

    def tool_messages(self, request: int) -> list[dict[str, Any]]:
        """The tool results the model received in its `request`-th request (0-based)."""
        body = self.model.requests[request]
        return [m for m in body["messages"] if m.get("role") == "tool"]


@pytest.fixture
def model() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture
async def closing() -> AsyncIterator[list[McpHub]]:
    """Hubs appended here are closed after the test (their servers stop)."""
    hubs: list[McpHub] = []
    yield hubs
    await asyncio.gather(*(h.close() for h in hubs))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def everything_http() -> Iterator[str]:
    """server-everything on streamable HTTP (a real node process); yields its /mcp URL."""
    assert EVERYTHING.is_file(), "run tests/mcp/setup-tests (installs server-everything)"
    port = free_port()
    proc = subprocess.Popen(
        [node(), str(EVERYTHING), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + WAIT
        for line in proc.stderr:  # blocks until the server says it listens (or exits)
            if "listening" in line.lower():
                break
            assert time.monotonic() < deadline, "server-everything did not start"
        else:
            raise AssertionError(f"server-everything exited: {proc.wait()}")
        # keep draining its log so a full pipe never blocks it
        threading.Thread(target=_drain, args=(proc.stderr,), daemon=True).start()
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()


def _drain(stream: Any) -> None:
    try:
        stream.read()
    except (OSError, ValueError):  # closed under us at the end of the test
        pass


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

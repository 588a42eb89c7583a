"""`ink-ls run` as a user runs it: a real process, a scripted model on loopback, a temp
workspace, `INK_STATE_DIR` in a temp dir. Stdout in `--json` mode must be JSON lines only."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ink_ls.sessions.store import INTERRUPTED
from tests.fakes.model_server import FakeModelServer, Reply, text, tool

WAIT = 30.0
SECRET = "sk-e2e-cli-secret-0042"
README = "# Demo\n\nInstall with `make setup`, then start the project with `make start`.\n"


@pytest.fixture
def fake() -> Iterator[FakeModelServer]:
    with FakeModelServer() as srv:
        yield srv


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text(README)
    return root


@pytest.fixture
def env(tmp_path: Path, fake: FakeModelServer) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    out = {k: v for k, v in os.environ.items() if k in keep}
    out.update(
        INK_STATE_DIR=str(tmp_path / "state"),
        INK_BASE_URL=fake.base_url,
        INK_MODEL="fake-model",
        INK_API_KEY=SECRET,
        PYTHONUNBUFFERED="1",
    )
    return out


@dataclass
class Run:
    proc: asyncio.subprocess.Process
    events: list[dict[str, Any]] = field(default_factory=list)
    stderr: str = ""

    async def until(self, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Read JSON lines until one matches `pred` (every line must be JSON)."""

        async def scan() -> dict[str, Any]:
            assert self.proc.stdout is not None
            while True:
                line = await self.proc.stdout.readline()
                assert line, f"stdout ended early; events: {[e['type'] for e in self.events]}"
                event = json.loads(line)
                self.events.append(event)
                if pred(event):
                    return event

        return await asyncio.wait_for(scan(), WAIT)

    async def finish(self) -> int:
        out, err = await asyncio.wait_for(self.proc.communicate(), WAIT)
        self.events += [json.loads(line) for line in out.decode().splitlines()]
        self.stderr = err.decode()
        assert self.proc.returncode is not None
        return self.proc.returncode

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]


@pytest.fixture
async def ink(env: dict[str, str], ws: Path) -> AsyncIterator[Callable[..., Any]]:
    procs: list[asyncio.subprocess.Process] = []

    async def start(*args: str, stdin: int = asyncio.subprocess.DEVNULL) -> Run:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "ink_ls",
            "run",
            "--cwd",
            str(ws),
            *args,
            stdin=stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        procs.append(proc)
        return Run(proc)

    yield start
    for proc in procs:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def read_pid_from_fifo(fifo: Path) -> int:
    """The pid a tool command writes into `fifo` (blocks in a thread, bounded by WAIT)."""
    try:
        return int(await asyncio.wait_for(asyncio.to_thread(fifo.read_text), WAIT))
    finally:
        try:  # unblock the reader thread if the command never wrote
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


async def test_readme_question_reads_the_file_and_answers(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path, tmp_path: Path
) -> None:
    fake.push(
        tool("read", {"path": "README.md"}, call_ids=["call_r"]),
        text("Run `make setup`, then `make start`."),
    )
    run: Run = await ink("--json", "read README.md and tell me how to start the project")
    assert await run.finish() == 0, run.stderr
    assert run.stderr == ""
    kinds = [t for t in run.types() if t != "text_delta"]
    assert [t for t in kinds if t.startswith("tool_")] == [
        "tool_start",
        "tool_running",
        "tool_settled",
        "tool_end",
    ]
    assert [t for t in kinds if not t.startswith("tool_")] == [
        "message_end",
        "message_end",
        "run_end",
    ]
    # the read is complete in the stream before the reply ends: it starts then, and its
    # result is delivered after the reply
    assert kinds.index("tool_start") < kinds.index("message_end") < kinds.index("tool_end")
    tool_end = run.events[run.types().index("tool_end")]
    assert (tool_end["tool_name"], tool_end["is_error"]) == ("read", False)
    assert "".join(e["text"] for e in run.events if e["type"] == "text_delta") == (
        "Run `make setup`, then `make start`."
    )
    end = run.events[-1]
    assert end["stop_reason"] == "completed"
    assert end["text"] == "Run `make setup`, then `make start`."
    assert end["usage"] == {"input_tokens": 20, "output_tokens": 10, "cache_read_tokens": 0}

    first, second = fake.wait_requests(2)
    assert first["messages"][0]["role"] == "system"
    assert f"Workspace root: {ws}" in first["messages"][0]["content"]
    assert first["messages"][1] == {
        "role": "user",
        "content": "read README.md and tell me how to start the project",
    }
    assert {t["function"]["name"] for t in first["tools"]} >= {
        "read",
        "bash",
        "edit",
        "write",
        "grep",
        "find",
        "ls",
    }
    tool_msg = second["messages"][3]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_r"
    assert "start the project with `make start`" in tool_msg["content"]
    assert fake.request_headers[0]["Authorization"] == f"Bearer {SECRET}"

    session_file = tmp_path / "state" / "sessions" / f"{end['session_id']}.jsonl"
    records = [json.loads(line) for line in session_file.read_text().splitlines()[1:]]
    assert records[0] == {
        "type": "turn",
        "entry": 1,
        "at": records[0]["at"],
        "prompt": "read README.md and tell me how to start the project",
    }
    roles = [r["message"]["role"] for r in records if r["type"] == "message"]
    assert roles == ["user", "assistant", "toolResult", "assistant"]


async def test_sigkill_during_a_tool_call_then_the_session_continues(
    ink: Callable[..., Any], fake: FakeModelServer, tmp_path: Path
) -> None:
    fifo = tmp_path / "pid.fifo"
    os.mkfifo(fifo)
    fake.push(tool("bash", {"command": f"echo $$ > {fifo}; exec sleep 300"}, call_ids=["c_b"]))
    run: Run = await ink("--json", "--approval", "auto", "--session", "work", "run the sleeper")
    await run.until(lambda e: e["type"] == "tool_running")
    pid = await read_pid_from_fifo(fifo)  # the command is really running now
    try:
        run.proc.send_signal(signal.SIGKILL)
        assert await run.finish() == -signal.SIGKILL
        # no handler runs on SIGKILL: the watchdog ends the command all the same
        deadline = asyncio.get_running_loop().time() + 10.0  # far less than the sleep
        while not gone(pid):
            assert asyncio.get_running_loop().time() < deadline, "the command survived kill -9"
            await asyncio.sleep(0.02)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)

    fake.push(text("It was interrupted; nothing else to do."))
    again: Run = await ink("--json", "--approval", "auto", "--session", "work", "go on")
    assert await again.finish() == 0, again.stderr
    assert again.events[-1]["stop_reason"] == "completed"
    assert again.events[-1]["session_id"] == "work"
    body = fake.wait_requests(2)[1]
    assert body["messages"][1:] == [
        {"role": "user", "content": "run the sleeper"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c_b",
                    "type": "function",
                    "function": {
                        "name": "bash",
                        "arguments": json.dumps({"command": f"echo $$ > {fifo}; exec sleep 300"}),
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c_b", "content": INTERRUPTED},
        {"role": "user", "content": "go on"},
    ]


async def test_ctrl_c_cancels_through_the_tools_and_exits_130(
    ink: Callable[..., Any], fake: FakeModelServer, tmp_path: Path
) -> None:
    fifo = tmp_path / "pid.fifo"
    os.mkfifo(fifo)
    fake.push(tool("bash", {"command": f"echo $$ > {fifo}; exec sleep 30"}))
    run: Run = await ink("--json", "--approval", "auto", "sleep please")
    await run.until(lambda e: e["type"] == "tool_running")
    pid = await read_pid_from_fifo(fifo)
    run.proc.send_signal(signal.SIGINT)
    code = await run.finish()
    if not gone(pid):
        os.killpg(pid, signal.SIGKILL)
        pytest.fail("the bash command survived the cancel")
    assert code == 130
    assert "ink-ls run: cancelled" in run.stderr
    tool_end = next(e for e in run.events if e["type"] == "tool_end")
    assert tool_end["is_error"] is True
    assert "command aborted by user" in tool_end["content"][0]["text"]
    assert tool_end["cancelled"] is True  # stopped by the cancel, not a failure of its own
    assert run.events[-1]["type"] == "run_end"
    assert run.events[-1]["stop_reason"] == "aborted"
    assert len(fake.requests) == 1  # no model request after the cancel


async def test_a_reply_cut_at_the_token_limit_has_its_calls_refused(
    ink: Callable[..., Any], fake: FakeModelServer, ws: Path
) -> None:
    fake.push(
        tool(
            "write", '{"path": "out.txt", "content": "hal', finish_reason="length", call_ids=["c_w"]
        ),
        text("I will retry later."),
    )
    run: Run = await ink("--json", "--approval", "auto", "write out.txt")
    assert await run.finish() == 0, run.stderr
    tool_end = next(e for e in run.events if e["type"] == "tool_end")
    assert tool_end["is_error"] is True
    assert "tool_running" not in run.types()
    assert not (ws / "out.txt").exists()
    refusal = fake.wait_requests(2)[1]["messages"][3]
    assert refusal["role"] == "tool" and refusal["tool_call_id"] == "c_w"
    assert refusal["content"] == (
        'Tool call "write" was not executed: the response hit the output token limit, so its '
        "arguments may be truncated. Re-issue the tool call with complete arguments."
    )


async def test_a_final_reply_cut_at_the_token_limit_reports_max_tokens_and_exits_4(
    ink: Callable[..., Any], fake: FakeModelServer
) -> None:
    fake.push(text("The answer begins and then", finish_reason="length"))
    run: Run = await ink("--json", "explain the project")
    assert await run.finish() == 4, run.stderr
    end = run.events[-1]
    assert (end["type"], end["stop_reason"], end["text"]) == (
        "run_end",
        "max_tokens",
        "The answer begins and then",
    )
    assert run.stderr == (
        "ink-ls run: the answer was cut at the output-token limit (raise INK_MAX_TOKENS or ask "
        "for a shorter answer)\n"
    )


async def test_the_live_view_says_max_tokens_too(
    ink: Callable[..., Any], fake: FakeModelServer
) -> None:
    fake.push(text("The answer begins and then", finish_reason="length"))
    run: Run = await ink("explain the project")
    out, err = await asyncio.wait_for(run.proc.communicate(), WAIT)
    assert run.proc.returncode == 4
    assert "The answer begins and then" in out.decode()
    summary = err.decode().splitlines()[-2:]
    assert summary[0].startswith("max_tokens · ")
    assert summary[1] == (
        "ink-ls run: the answer was cut at the output-token limit (raise "
        "INK_MAX_TOKENS or ask for a shorter answer)"
    )


async def test_a_failing_endpoint_exits_1_with_the_reason_and_never_the_key(
    ink: Callable[..., Any], fake: FakeModelServer
) -> None:
    fake.push(Reply(status=401, body=f'{{"error":{{"message":"bad key {SECRET}"}}}}'))
    run: Run = await ink("--json", "--log-level", "debug", "hello")
    assert await run.finish() == 1
    end = run.events[-1]
    assert end["type"] == "run_end" and end["stop_reason"] == "error"
    assert end["error"].startswith(
        f"the model endpoint at {fake.base_url} answered HTTP 401: bad key [redacted]"
    )
    assert f"ink-ls run: {end['error']}" in run.stderr
    assert "DEBUG" in run.stderr  # logs went to stderr, stdout stayed pure JSON
    assert SECRET not in run.stderr and SECRET not in json.dumps(run.events)


async def test_commands_never_see_the_api_key(
    ink: Callable[..., Any], fake: FakeModelServer, env: dict[str, str]
) -> None:
    env["MY_PROVIDER_KEY"] = "sk-provider-only-1234"
    fake.push(tool("bash", {"command": "env; echo end-of-env"}, call_ids=["c_env"]), text("ok"))
    run: Run = await ink(
        "--json", "--approval", "auto", "--api-key-env", "MY_PROVIDER_KEY", "show the environment"
    )
    assert await run.finish() == 0, run.stderr
    assert fake.request_headers[0]["Authorization"] == "Bearer sk-provider-only-1234"
    output = fake.wait_requests(2)[1]["messages"][3]["content"]
    assert "end-of-env" in output and "INK=1" in output
    for secret in ("sk-provider-only-1234", SECRET):
        assert secret not in output
        assert secret not in json.dumps(run.events)


async def test_without_json_or_a_terminal_the_output_is_plain_lines(
    ink: Callable[..., Any], fake: FakeModelServer
) -> None:
    fake.push(tool("read", {"path": "README.md"}), text("Use `make start`."))
    run = await ink("--approval", "readonly", "how do I start it?")
    out, err = await asyncio.wait_for(run.proc.communicate(), WAIT)
    assert run.proc.returncode == 0, err.decode()
    first, answer = out.decode().splitlines()
    assert re.fullmatch(r"✓ read README\.md  \d+ ms", first)
    assert answer == "Use `make start`."
    lines = err.decode().splitlines()
    assert lines[0].startswith("session s-")
    # no /v1/models figure from this endpoint: the stated default
    assert lines[0].endswith(f"fake-model at {fake.base_url} · window 32,768 tokens (default)")
    assert lines[1].startswith(
        "completed · 20 tokens in, 10 out · context 15 of 32,768 (0 %) "
        "· session 20 in, 10 out · continue with --session s-"
    )

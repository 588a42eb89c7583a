"""Hostile MCP results through `ink-ls run`: a 100 MB result is answered within its cap (its
start saved to a capped log that is gone when the run ends), images that are not images become
notes and never reach the model, junk on a server's stdout and a malformed notification cost
one log line each (no traceback), and nothing is left in `$TMPDIR`."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import threading
import time
from pathlib import Path

from ink_ls.mcp.stdio import MAX_MESSAGE
from ink_ls.tools.outputs import LOG_BYTES
from tests.fakes.model_server import FakeModelServer, text, tool

PY = sys.executable
REPO = Path(__file__).resolve().parents[2]
WAIT = 120.0


async def test_huge_result_bad_images_and_junk_stdout(tmp_path: Path) -> None:
    ws, tmp = tmp_path / "ws", tmp_path / "tmp"
    ws.mkdir()
    tmp.mkdir()
    config = tmp_path / "config" / "ink-ls" / "mcp.json"
    config.parent.mkdir(parents=True)
    hostile = {"command": PY, "args": ["-m", "tests.fakes.mcp_hostile", "--banner"]}
    config.write_text(json.dumps({"mcpServers": {"h": {**hostile, "cwd": str(REPO)}}}))
    checked = threading.Event()
    with FakeModelServer() as model:
        model.push(
            tool("mcp__h__huge", {"megabytes": 100}),
            tool("mcp__h__bad_image", {}),
            tool("mcp__h__huge", {"megabytes": 2}),
            text("done", hold=checked),
        )
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
        env.update(
            TMPDIR=str(tmp),
            INK_STATE_DIR=str(tmp_path / "state"),
            XDG_CONFIG_HOME=str(tmp_path / "config"),
            INK_BASE_URL=model.base_url,
            INK_MODEL="fake-model",
            PYTHONPATH=str(REPO),
        )
        proc = await asyncio.create_subprocess_exec(
            PY,
            "-m",
            "ink_ls",
            "run",
            "--json",
            "--approval",
            "auto",
            "--cwd",
            str(ws),
            "go",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            limit=2**24,
        )
        try:
            ends: list[dict[str, object]] = []
            began = time.monotonic()
            assert proc.stdout is not None
            while len(ends) < 3:
                line = await asyncio.wait_for(proc.stdout.readline(), WAIT)
                assert line, "the run ended early"
                event = json.loads(line)
                if event["type"] == "tool_end":
                    ends.append(event)
                    if len(ends) == 1:
                        huge_seconds = time.monotonic() - began
            # the logs exist while the run does (the last reply is held until they are checked)
            said = [_text(e) for e in ends]
            path = Path(said[0].split(" are in ")[1].split(";")[0])
            assert path.parent.parent == tmp and path.parent.name.startswith("ink-ls-")
            assert path.stat().st_size == LOG_BYTES
            assert path.read_bytes().startswith(b'{"')
            small = Path(said[2].split("Full output: ")[1].split(";")[0])
            assert small.parent == path.parent and small.stat().st_size == 2 * 1024 * 1024
            checked.set()
            out, err = await asyncio.wait_for(proc.communicate(), WAIT)
        finally:
            checked.set()
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        assert proc.returncode == 0, err.decode()
        requests = model.requests
    mib = MAX_MESSAGE // (1024 * 1024)
    assert re.fullmatch(
        r"Error: the result of mcp__h__huge was 10\d\.\d MiB, over the "
        + re.escape(
            f"{mib} MiB limit for one MCP message, so it was not read. Its first {LOG_BYTES:,} "
            f"bytes (the raw JSON-RPC message) are in {path}; read it with the read tool, or ask "
            "the tool for less."
        ),
        said[0],
    ), said[0]
    assert huge_seconds < 60, huge_seconds
    assert ends[0]["is_error"] is True
    assert said[1] == (
        "here is the chart\n"
        "[image 2 of the result not shown: its data is not valid base64]\n"
        "[image 3 of the result not shown: it could not be decoded: the bytes are no readable "
        "image]"
    )
    assert "[output cut: showing lines 1-500 of " in said[2]
    assert "image_url" not in json.dumps(requests[2]) and "not*base64" not in json.dumps(requests)
    # the process's log directory went with it
    assert list(tmp.iterdir()) == [] or all(not p.name.startswith("ink-") for p in tmp.iterdir())
    stderr = err.decode()
    assert "Traceback" not in stderr, stderr
    junk = [ln for ln in stderr.splitlines() if "not JSON-RPC" in ln]
    assert len(junk) == 1 and "hostile banner: starting up ␛]0;banner-title␇" in junk[0]
    assert "\x1b" not in stderr
    notification = [ln for ln in stderr.splitlines() if "Failed to validate notification" in ln]
    assert len(notification) == 1, stderr
    details = tmp_path / "state" / "logs" / "ink-ls.log"
    assert f"details in {details})" in notification[0]
    assert "Traceback" in details.read_text()


def _text(event: dict[str, object]) -> str:
    content = event["content"]
    assert isinstance(content, list)
    return "".join(b.get("text", "") for b in content)

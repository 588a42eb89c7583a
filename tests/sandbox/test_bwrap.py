"""The command sandbox with bwrap (installed by tests/sandbox/setup-tests), real commands through
the bash tool: the kernel refuses a write outside the workspace, a read of `~/.ssh/id_*` and
`Read` deny paths, and a network socket (the host's loopback listener included); the same
commands inside the workspace run; a failure for a sandbox reason says so; `auto` picks bwrap;
without any mechanism the model is told once."""

from __future__ import annotations

import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ink_ls.core.signal import NEVER
from ink_ls.core.tool import ToolContext, ToolResult
from ink_ls.tools import _process
from ink_ls.tools.bash import BashTool
from ink_ls.tools.sandbox import Availability, SandboxSettings, availability

ON = SandboxSettings(enabled=True, mechanism="bwrap")
HINT = "[This command ran in the sandbox: it cannot write outside the workspace"


@pytest.fixture(autouse=True)
def _no_leftovers() -> Iterator[None]:
    yield
    _process.kill_all_tracked()


@pytest.fixture
def outside() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as name:
        yield Path(name)


@pytest.fixture
def home(outside: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = outside / "home"
    (root / ".ssh").mkdir(parents=True)
    (root / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (root / ".netrc").write_text("machine x password hunter2\n")
    monkeypatch.setenv("HOME", str(root))
    return root


async def run(command: str, ws: Path, settings: SandboxSettings = ON) -> ToolResult:
    tool = BashTool(log_dir=str(ws), sandbox=settings)
    params = tool.validate_arguments({"command": command})
    return await tool.execute(params, NEVER, ToolContext("call-1", ws))


def test_bwrap_is_the_sandbox_here_and_auto_picks_it() -> None:
    assert availability("bwrap").ok, availability("bwrap").problem
    assert availability().mechanism == "bwrap (bubblewrap)"


async def test_a_write_outside_is_refused_and_inside_runs(tmp_path: Path, outside: Path) -> None:
    result = await run(f"echo data > {outside}/f.txt", tmp_path)
    assert f"{outside}/f.txt: Read-only file system" in result.output
    assert "Exit code: 1" in result.output and HINT in result.output
    assert not (outside / "f.txt").exists()
    inside = await run("echo data > f.txt && cat f.txt", tmp_path)
    assert inside.output == "stdout:\ndata" and (tmp_path / "f.txt").read_text() == "data\n"


async def test_secrets_and_deny_paths_are_unreadable(tmp_path: Path, home: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "token").write_text("tok\n")
    (tmp_path / "notes.txt").write_text("mine\n")
    settings = SandboxSettings(enabled=True, mechanism="bwrap", deny_read=("secrets",))
    result = await run(
        "cat ~/.ssh/id_*; ls ~/.ssh; cat ~/.netrc; cat secrets/token", tmp_path, settings
    )
    assert f"cat: '{home}/.ssh/id_*': Permission denied" in result.output or (
        f"cat: {home}/.ssh/id_*: Permission denied" in result.output
    )
    assert f"ls: cannot open directory '{home}/.ssh': Permission denied" in result.output
    assert f"cat: {home}/.netrc: Permission denied" in result.output
    assert "cat: secrets/token: Permission denied" in result.output
    assert "PRIVATE KEY" not in result.output and "hunter2" not in result.output
    assert "tok\n" not in result.output
    assert (await run("cat notes.txt", tmp_path, settings)).output == "stdout:\nmine"


async def test_no_network_not_even_the_hosts_loopback(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        probe = (
            "import socket; s = socket.socket(); s.settimeout(5); "
            f"s.connect(('127.0.0.1', {port})); print('connected')"
        )
        command = f'python3 -c "{probe}"'
        result = await run(command, tmp_path)
        assert "ConnectionRefusedError: [Errno 111] Connection refused" in result.output
        assert "connected" not in result.output and HINT in result.output
        assert "no network (not even the loopback)" in result.output
        allowed = SandboxSettings(enabled=True, network=True, mechanism="bwrap")
        assert (await run(command, tmp_path, allowed)).output == "stdout:\nconnected"


async def test_without_any_mechanism_the_model_is_told_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ink_ls.tools import bash as bash_module

    missing = Availability(
        False,
        "none",
        "bwrap is not installed (Debian package bubblewrap), and Landlock is unavailable (x)",
    )
    monkeypatch.setattr(bash_module, "availability", lambda *mechanism: missing)
    first = await run("echo one", tmp_path, SandboxSettings(enabled=True))
    second = await run("echo two", tmp_path, SandboxSettings(enabled=True))
    assert first.output.endswith(
        "[The command sandbox is enabled but unavailable here (bwrap is not installed (Debian "
        "package bubblewrap), and Landlock is unavailable (x)); commands run unsandboxed and "
        "are approved one by one.]"
    )
    assert second.output == "stdout:\ntwo"

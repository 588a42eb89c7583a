"""The command sandbox with real commands: the kernel refuses writes outside the workspace,
reads of secrets and network sockets (a loopback listener included); the workspace works;
timeouts still kill the whole group. Needs Landlock and namespaces (these machines have them);
the same with bwrap: tests/sandbox/test_bwrap.py.
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ink_ls.agent.approval import ApprovalGate
from ink_ls.agent.gate import GateRequest
from ink_ls.core.signal import NEVER
from ink_ls.core.tool import ToolContext, ToolResult
from ink_ls.tools import _process
from ink_ls.tools.bash import BashTool
from ink_ls.tools.sandbox import SandboxSettings, availability

ON = SandboxSettings(enabled=True, mechanism="landlock")
HINT = "[This command ran in the sandbox: it cannot write outside the workspace"


@pytest.fixture(autouse=True)
def _no_leftovers() -> Iterator[None]:
    yield
    _process.kill_all_tracked()


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the workspace and the temp dirs (a real home is not under /tmp)."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as name:
        yield Path(name)


@pytest.fixture
def home(outside: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = outside / "home"
    (root / ".ssh").mkdir(parents=True)
    (root / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    monkeypatch.setenv("HOME", str(root))
    return root


async def run(command: str, ws: Path, settings: SandboxSettings = ON, **args: object) -> ToolResult:
    tool = BashTool(log_dir=str(ws), sandbox=settings)
    params = tool.validate_arguments({"command": command, **args})
    return await tool.execute(params, NEVER, ToolContext("call-1", ws))


def test_this_machine_has_the_sandbox() -> None:
    assert availability().ok, availability().problem


async def test_writing_outside_the_workspace_is_refused_inside_it_works(
    tmp_path: Path, outside: Path
) -> None:
    command = f"echo data > {outside}/f.txt"
    result = await run(command, tmp_path)
    assert f"{outside}/f.txt: Permission denied" in result.output
    assert "Exit code: 1" in result.output and HINT in result.output
    assert not (outside / "f.txt").exists()
    inside = await run("echo data > f.txt && cat f.txt", tmp_path)
    assert inside.output == "stdout:\ndata"
    unsandboxed = await run(command, tmp_path, SandboxSettings())
    assert unsandboxed.output == "(no output)" and (outside / "f.txt").read_text() == "data\n"


async def test_secrets_under_home_are_unreadable(tmp_path: Path, home: Path) -> None:
    result = await run("cat ~/.ssh/id_ed25519; ls ~/.ssh; cat ~/.ssh/id_*", tmp_path)
    assert f"cat: {home}/.ssh/id_ed25519: Permission denied" in result.output
    assert f"ls: cannot open directory '{home}/.ssh': Permission denied" in result.output
    assert "PRIVATE KEY" not in result.output and "id_ed25519\n" not in result.output
    (tmp_path / "notes.txt").write_text("mine\n")
    assert (await run("cat notes.txt", tmp_path)).output == "stdout:\nmine"


async def test_no_network_not_even_loopback(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        probe = (
            "import socket; s = socket.socket(); s.settimeout(5); "
            f"s.connect(('127.0.0.1', {port})); print('connected')"
        )
        command = f'python3 -c "{probe}"'
        result = await run(command, tmp_path)
        assert "PermissionError: [Errno 13] Permission denied" in result.output
        assert "connected" not in result.output and HINT in result.output
        allowed = await run(
            command, tmp_path, SandboxSettings(enabled=True, network=True, mechanism="landlock")
        )
        assert allowed.output == "stdout:\nconnected"


async def test_writable_entries_are_writable(tmp_path: Path, outside: Path) -> None:
    settings = SandboxSettings(enabled=True, writable=(str(outside),), mechanism="landlock")
    result = await run(f"echo ok > {outside}/f.txt && cat {outside}/f.txt", tmp_path, settings)
    assert result.output == "stdout:\nok"


async def test_a_timeout_kills_the_sandboxed_group(tmp_path: Path) -> None:
    result = await run("sleep 300 & echo $! > child.pid; wait", tmp_path, timeout=1)
    assert result.is_error and "command timed out after 1s and was killed" in result.output
    pid = int((tmp_path / "child.pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_sandboxed_commands_pass_ask_mode_unasked_and_leaving_it_asks(
    tmp_path: Path,
) -> None:
    asked: list[str] = []

    async def prompter(question: object, signal: object) -> str:
        asked.append(getattr(question, "title", ""))
        return "reject"

    gate = ApprovalGate("ask", prompter)  # type: ignore[arg-type]
    tool = BashTool(sandbox=ON)
    inside = GateRequest(tool, "c1", tool.validate_arguments({"command": "make"}), tmp_path)
    assert gate.would_pass(inside) and await gate(inside, NEVER) is None
    leave = tool.validate_arguments({"command": "make", "sandbox": False})
    request = GateRequest(tool, "c2", leave, tmp_path)
    assert not gate.would_pass(request)
    blocked = await gate(request, NEVER)
    assert blocked is not None and asked == ["Run command: make"]
    assert "sandbox" not in BashTool().parameters()["properties"]
    assert tool.parameters()["properties"]["sandbox"]["default"] is True


PROBE = """
import asyncio, sys
from pathlib import Path
from ink_ls.core.signal import NEVER
from ink_ls.core.tool import ToolContext
from ink_ls.tools.bash import BashTool
from ink_ls.tools.sandbox import SandboxSettings

async def main() -> None:
    ws = Path(sys.argv[1])
    tool = BashTool(log_dir=str(ws), sandbox=SandboxSettings(enabled=True))
    command = "echo hi > f && id -u && stat -c %u f && cat ~/.ssh/id_ed25519"
    result = await tool.execute(tool.validate_arguments({"command": command}), NEVER,
                                ToolContext("c", ws))
    print(result.output)

asyncio.run(main())
"""


async def test_an_unprivileged_user_gets_the_sandbox_through_a_user_namespace(
    outside: Path,
) -> None:
    """As root (CI) the probe runs as `nobody`; files a command writes stay the user's."""
    import asyncio
    import shutil
    import sys

    home, ws = outside / "home", outside / "ws"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("KEY\n")
    ws.mkdir()
    uid = os.geteuid()
    prefix: list[str] = []
    if uid == 0:
        uid = 65534
        for path in (outside, home, home / ".ssh", home / ".ssh" / "id_ed25519", ws):
            os.chown(path, uid, uid)
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) is needed to drop root in this test"
        prefix = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    repo = Path(__file__).resolve().parents[3]
    proc = await asyncio.create_subprocess_exec(
        *prefix,
        sys.executable,
        "-c",
        PROBE,
        str(ws),
        env={"HOME": str(home), "PATH": os.environ["PATH"], "PYTHONPATH": str(repo)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    text = out.decode()
    assert text.startswith(f"stdout:\n{uid}\n{uid}\n"), text
    assert f"cat: {home}/.ssh/id_ed25519: Permission denied" in text


async def test_without_a_mechanism_it_says_so_once_and_commands_are_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine without Landlock (simulated: the probe's answer is replaced)."""
    from ink_ls.tools import bash as bash_module
    from ink_ls.tools.sandbox import Availability

    missing = Availability(False, "none", "Landlock is not available in this kernel")
    monkeypatch.setattr(bash_module, "availability", lambda *mechanism: missing)
    first = await run("echo one", tmp_path)
    second = await run("echo two", tmp_path)
    assert first.output == (
        "stdout:\none\n\n[The command sandbox is enabled but unavailable here (Landlock is not "
        "available in this kernel); commands run unsandboxed and are approved one by one.]"
    )
    assert second.output == "stdout:\ntwo"
    tool = BashTool(sandbox=ON)
    request = GateRequest(tool, "c1", tool.validate_arguments({"command": "make"}), tmp_path)
    assert not ApprovalGate("ask").would_pass(request)

"""The Python package as users get it: `python -m build` gives a wheel and an sdist, and
`uv tool install <wheel>` into a clean tool environment gives an `ink-ls` that works
(`ink-ls run` against the scripted model, nothing imported from this checkout)."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from tests.fakes.model_server import FakeModelServer, text, tool

REPO = Path(__file__).resolve().parents[2]


def _uv() -> str:
    uv = Path(sys.executable).parent / "uv"
    assert uv.is_file(), "uv is missing: install the test extras (build[uv])"
    return str(uv)


def test_wheel_and_sdist_build_and_the_wheel_installs_as_a_tool(
    tmp_path: Path, model: FakeModelServer
) -> None:
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--installer", "uv", "--outdir", str(dist), str(REPO)],
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = dist.glob("ink_ls-*.whl")
    (sdist,) = dist.glob("ink_ls-*.tar.gz")
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
    assert {"ink_ls/cli.py", "ink_ls/acp/agent.py", "ink_ls/server.py"} <= names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    with zipfile.ZipFile(wheel) as whl:
        assert "ink-ls = ink_ls.cli:main" in whl.read(entry_points).decode()
    with tarfile.open(sdist) as tar:
        members = {m.split("/", 1)[1] for m in tar.getnames() if "/" in m}
    assert {"pyproject.toml", "README.md", "ink_ls/acp/agent.py"} <= members
    assert not any("node_modules" in m for m in members)

    # a clean tool environment: nothing from this checkout or its venv on the paths
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "OPENAI_API_KEY", "OPENAI_BASE_URL")
    }
    env.update(
        UV_TOOL_DIR=str(tmp_path / "tools"),
        UV_TOOL_BIN_DIR=str(tmp_path / "bin"),
        PATH="/usr/bin:/bin",
    )
    installed = subprocess.run(
        [_uv(), "tool", "install", str(wheel)], env=env, capture_output=True, text=True, timeout=100
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    ink_ls = tmp_path / "bin" / "ink-ls"
    assert ink_ls.is_file()

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("print('packaged')\n")
    model.push(tool("read", {"path": "app.py"}), text("app.py prints packaged."))
    env.update(
        INK_BASE_URL=model.base_url,
        INK_MODEL="fake-model",
        INK_API_KEY="sk-test-pkg",
        INK_STATE_DIR=str(tmp_path / "state"),
    )
    where = subprocess.run(
        [
            str(tmp_path / "tools" / "ink-ls" / "bin" / "python"),
            "-c",
            "import ink_ls; print(ink_ls.__file__)",
        ],
        env=env,
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert where.stdout.startswith(str(tmp_path / "tools")), where.stdout + where.stderr
    run = subprocess.run(
        [str(ink_ls), "run", "--approval", "auto", "what does app.py print?"],
        env=env,
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert "app.py prints packaged." in run.stdout
    tool_message = next(m for m in model.requests[1]["messages"] if m.get("role") == "tool")
    assert "print('packaged')" in str(tool_message["content"])

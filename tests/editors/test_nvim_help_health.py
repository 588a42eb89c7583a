"""The Neovim plugin as the README installs it (editors/nvim on the runtimepath, nothing run
after): `:help ink` and `:help :InkAsk` work from the shipped doc/tags, that file matches what
`:helptags` makes of doc/ink.txt, and `:checkhealth ink` probes the server's real default
endpoint. The VS Code setting describes the same default. Real headless Neovim."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ink_ls.core.config import DEFAULT_BASE_URL

REPO = Path(__file__).resolve().parents[2]
NVIM = REPO / ".venv" / "bin" / "nvim"
PLUGIN = REPO / "editors" / "nvim"


def nvim(tmp_path: Path, lua: str, *, env_extra: dict[str, str] | None = None) -> Any:
    """Run `lua` in `nvim --headless --clean` with only the plugin added to the runtimepath;
    the chunk's `OUT` table comes back as JSON."""
    out = tmp_path / "out.json"
    script = tmp_path / "check.lua"
    script.write_text(
        f"OUT = {{}}\nlocal ok, err = pcall(function()\n{lua}\nend)\n"
        "if not ok then OUT.error = tostring(err) end\n"
        f"vim.fn.writefile({{vim.json.encode(OUT)}}, {json.dumps(str(out))})\n"
        "vim.cmd('qall!')\n"
    )
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    env["LANG"] = "C.UTF-8"
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        env[f"XDG_{name}_HOME"] = str(tmp_path / f"xdg-{name.lower()}")
    env.update(env_extra or {})
    subprocess.run(
        [
            str(NVIM),
            "--headless",
            "--clean",
            "--cmd",
            f"set runtimepath^={PLUGIN}",
            "-c",
            f"luafile {script}",
        ],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
    result = json.loads(out.read_text())
    assert "error" not in result, result["error"]
    return result


def test_help_ink_and_help_inkask_work_from_the_shipped_tags(tmp_path: Path) -> None:
    result = nvim(
        tmp_path,
        """
        OUT.tags = vim.fn.globpath(vim.o.runtimepath, 'doc/tags', false, true)
        for _, topic in ipairs({ 'ink', ':InkAsk', 'ink-health' }) do
          vim.cmd('help ' .. topic)
          OUT[topic] = { file = vim.fn.expand('%:p'), line = vim.api.nvim_get_current_line() }
          vim.cmd('helpclose')
        end
    """,
    )
    assert str(PLUGIN / "doc" / "tags") in result["tags"]
    doc = str(PLUGIN / "doc" / "ink.txt")
    assert result["ink"]["file"] == doc
    assert "*ink*" in result["ink"]["line"]
    assert result[":InkAsk"]["file"] == doc
    assert "*:InkAsk*" in result[":InkAsk"]["line"]
    assert "*ink-health*" in result["ink-health"]["line"]


def test_the_shipped_tags_match_helptags_of_the_shipped_doc(tmp_path: Path) -> None:
    copy = tmp_path / "doc"
    copy.mkdir()
    shutil.copy(PLUGIN / "doc" / "ink.txt", copy / "ink.txt")
    result = nvim(tmp_path, f"vim.cmd('helptags ' .. vim.fn.fnameescape({json.dumps(str(copy))}))")
    assert result in ({}, [])  # vim.json encodes an empty table as []
    regenerate = "nvim --headless -c 'helptags editors/nvim/doc' -c q"
    assert (copy / "tags").read_bytes() == (PLUGIN / "doc" / "tags").read_bytes(), (
        f"editors/nvim/doc/tags is stale: run {regenerate}"
    )


def test_checkhealth_probes_the_servers_default_endpoint(tmp_path: Path) -> None:
    python = REPO / ".venv" / "bin" / "python"
    result = nvim(
        tmp_path,
        f"""
        require('ink').setup({{ cmd = {{ {json.dumps(str(python))}, '-m', 'ink_ls', '--stdio' }} }})
        vim.cmd('checkhealth ink')
        OUT.lines = vim.api.nvim_buf_get_lines(0, 0, -1, true)
    """,
        env_extra={"PYTHONPATH": str(REPO)},
    )
    text = "\n".join(result["lines"])
    assert f"model.baseUrl not set: ink-ls uses {DEFAULT_BASE_URL}" in text
    probed = [ln for ln in result["lines"] if "model endpoint" in ln]
    assert len(probed) == 1 and f"model endpoint {DEFAULT_BASE_URL} is" in probed[0], text
    assert "api.openai.com" not in text


def test_the_vscode_base_url_setting_states_the_servers_default() -> None:
    manifest = json.loads((REPO / "editors" / "vscode" / "package.json").read_text())
    setting = manifest["contributes"]["configuration"]["properties"]["ink.model.baseUrl"]
    assert DEFAULT_BASE_URL in setting["markdownDescription"]
    assert "OpenAI)" not in setting["markdownDescription"]

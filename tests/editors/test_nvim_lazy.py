"""The lazy.nvim spec in README.md works as written: in a headless Neovim that, like lazy.nvim,
loads no plugin directory by itself, the spec's `config(plugin, opts)` is called the way
lazy.nvim calls it (with `plugin.dir` the normalized `dir` of the spec, `~` expanded): the
:Ink* commands exist, `require('ink')` has the options, and `:help ink` / `:help :InkAsk` open
the shipped doc (doc/tags)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NVIM = REPO / ".venv" / "bin" / "nvim"

CHECK = r"""
local ok, err = pcall(function()
  local spec = dofile(vim.env.INK_SPEC)
  local plugin = vim.tbl_extend('force', spec, { dir = vim.fs.normalize(spec.dir) })
  spec.config(plugin, spec.opts)
  assert(vim.fn.exists(':InkAsk') == 2, 'no :InkAsk')
  assert(vim.fn.exists(':InkCancel') == 2, 'no :InkCancel')
  local options = require('ink.config').options
  assert(vim.deep_equal(options.cmd, { 'ink-ls', '--stdio' }), vim.inspect(options.cmd))
  assert(options.approval == 'ask', vim.inspect(options.approval))
  vim.cmd.help('ink')
  assert(vim.fn.expand('%:t') == 'ink.txt', 'help ink opened ' .. vim.fn.expand('%:p'))
  vim.cmd.help(':InkAsk')
  assert(vim.api.nvim_get_current_line():find('InkAsk', 1, true), vim.api.nvim_get_current_line())
end)
io.stdout:write(ok and 'PASS lazy spec\n' or ('FAIL lazy spec: ' .. tostring(err) .. '\n'))
vim.cmd('qall!')
"""


def test_readme_lazy_spec_config_works(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text()
    block = re.search(
        r"<!-- lazy.nvim spec: begin -->\n```lua\n(.*?)```\n<!-- lazy.nvim spec: end -->",
        readme,
        re.S,
    )
    assert block, "README.md has no lazy.nvim spec block"
    spec = tmp_path / "ink.lua"
    spec.write_text(block.group(1))
    home = tmp_path / "home"
    (home / "src").mkdir(parents=True)
    (home / "src" / "ink-ls").symlink_to(REPO)  # the clone the spec's `dir` names
    env = {**os.environ, "HOME": str(home), "INK_SPEC": str(spec)}
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        env[f"XDG_{name}_HOME"] = str(tmp_path / name.lower())
    check = tmp_path / "check.lua"
    check.write_text(CHECK)
    done = subprocess.run(
        [
            str(NVIM),
            "--headless",
            "--clean",
            "--noplugin",
            "-i",
            "NONE",
            "-n",
            "-c",
            f"luafile {check}",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    out = done.stdout + done.stderr
    assert "PASS lazy spec" in out, out

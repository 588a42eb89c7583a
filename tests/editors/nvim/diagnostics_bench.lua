-- bench/diagnostics.py: headless Neovim with `ruff server` on Python buffers beside ink-ls;
-- one question whose scripted model rewrites two open files in turn (approval auto).
local H = require('harness')
local ink = require('ink')

local repo = assert(os.getenv('INK_TEST_REPO'))
vim.cmd.cd(assert(os.getenv('INK_TEST_WORKSPACE')))
vim.lsp.config('ruff', {
  cmd = { repo .. '/.venv/bin/ruff', 'server' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml' },
})
if not os.getenv('INK_BENCH_NO_RUFF') then
  vim.lsp.enable('ruff')
end
ink.setup({
  cmd = { repo .. '/.venv/bin/python', '-m', 'ink_ls', '--stdio', '--log-file', os.getenv('INK_TEST_SERVER_LOG'), '--log-level', 'info' },
  model = { baseUrl = os.getenv('INK_TEST_BASE_URL'), model = 'fake-model', apiKeyEnv = 'INK_TEST_API_KEY' },
  approval = 'auto',
})

H.case('bench: edits wait for ruff', function()
  vim.cmd.edit('m1.py')
  vim.cmd.edit('m0.py')
  local b = vim.api.nvim_get_current_buf()
  if not os.getenv('INK_BENCH_NO_RUFF') then
    H.wait_for(function()
      return #vim.diagnostic.get(b) > 0
    end, 'ruff on mod.py', 20000)
  end
  local done
  ink.ask('rewrite m0.py and m1.py many times', {
    on_done = function(err, result)
      done = { err = err, result = result }
    end,
  })
  H.wait_for(function()
    return done ~= nil
  end, 'the end of the turn', 110000)
  H.eq('end_turn', done.result and done.result.stopReason)
end)

H.run()

-- The editor's diagnostics reach the model: this headless Neovim runs `ruff server` as the
-- language server of Python buffers beside ink-ls; the scripted model rewrites a Python file
-- that already has problems, adding an unused import and an undefined name.
local H = require('harness')
local ink = require('ink')

local repo = assert(os.getenv('INK_TEST_REPO'))
local ws = assert(os.getenv('INK_TEST_WORKSPACE'))
vim.cmd.cd(ws)

vim.lsp.config('ruff', {
  cmd = { repo .. '/.venv/bin/ruff', 'server' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml' },
})
vim.lsp.enable('ruff')
ink.setup({
  cmd = { repo .. '/.venv/bin/python', '-m', 'ink_ls', '--stdio', '--log-file', os.getenv('INK_TEST_SERVER_LOG'), '--log-level', 'info' },
  model = { baseUrl = os.getenv('INK_TEST_BASE_URL'), model = 'fake-model', apiKeyEnv = 'INK_TEST_API_KEY' },
  approval = 'auto',
})

local function messages(b)
  return vim.tbl_map(function(d)
    return d.message
  end, vim.diagnostic.get(b))
end

H.case('ruff diagnostics of a change reach the model, old ones do not', function()
  vim.cmd.edit('mod.py')
  local b = vim.api.nvim_get_current_buf()
  H.wait_for(function()
    return #vim.diagnostic.get(b) == 2
  end, 'ruff reporting the two problems already in mod.py', 20000)
  local done
  ink.ask('add g() to mod.py and check it', {
    on_done = function(err, result)
      done = { err = err, result = result }
    end,
  })
  H.wait_for(function()
    return done ~= nil
  end, 'the end of the turn', 60000)
  H.eq(nil, done.err)
  H.eq('end_turn', done.result.stopReason)
  -- the buffer got the change, ruff saw it
  H.wait_for(function()
    return #vim.diagnostic.get(b) == 4
  end, 'ruff reporting four problems after the change', 20000)
  H.report('DIAGNOSTICS ' .. vim.json.encode(messages(b)))
end)

H.run()

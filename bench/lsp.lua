-- The Neovim side of bench/lsp.py: jedi-language-server attached to the project's Python
-- buffers through vim.lsp, ink-ls with the bench's scripted model; one turn, then quit.
-- Arguments: repo, workspace, model base URL.
local repo, ws, base_url = arg[1], arg[2], arg[3]
vim.opt.runtimepath:prepend(repo .. '/editors/nvim')
vim.cmd.cd(ws)
vim.lsp.config('jedi', {
  cmd = { repo .. '/.venv/bin/jedi-language-server' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml' },
})
vim.lsp.enable('jedi')
vim.cmd('filetype on')
local ink = require('ink')
ink.setup({
  cmd = { repo .. '/.venv/bin/python', '-m', 'ink_ls', '--stdio' },
  model = { baseUrl = base_url, model = 'fake-model', apiKeyEnv = 'INK_BENCH_KEY' },
  approval = 'auto',
})

local function wait(pred, ms)
  assert(vim.wait(ms, pred, 20), 'timed out')
end

vim.cmd.edit('pkg/util.py')
local b = vim.api.nvim_get_current_buf()
wait(function()
  local c = vim.lsp.get_clients({ name = 'jedi' })[1]
  return c and c.initialized and c.attached_buffers[b]
end, 60000)
local done
ink.ask('find the callers of greet', {
  on_done = function(err)
    done = err or true
  end,
})
wait(function()
  return done ~= nil
end, 300000)
io.stdout:write(done == true and 'OK\n' or ('ERROR ' .. vim.inspect(done) .. '\n'))
vim.cmd('qall!')

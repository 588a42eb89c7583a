-- Minimal init for the headless test Neovim: only editors/nvim on the runtimepath, no
-- swap/shada, and (for end-to-end runs) ink configured against the test server and model.
local repo = assert(os.getenv('INK_TEST_REPO'), 'INK_TEST_REPO is not set')
vim.opt.runtimepath:prepend(repo .. '/editors/nvim')
package.path = repo .. '/tests/editors/nvim/?.lua;' .. package.path
vim.o.swapfile = false
vim.o.shada = ''
vim.o.more = false -- a long message must never wait for a key

local base_url = os.getenv('INK_TEST_BASE_URL')
if base_url then
  require('ink').setup({
    cmd = { repo .. '/.venv/bin/python', '-m', 'ink_ls', '--stdio' },
    model = { baseUrl = base_url, model = 'fake-model', apiKeyEnv = 'INK_TEST_API_KEY' },
    approval = 'ask',
    approval_timeout = 60,
  })
end

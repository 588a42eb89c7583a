-- A rename the user edits before accepting, in a real headless Neovim: jedi-language-server
-- (attached by vim.lsp) answers the `lsp` tool's rename through ink-ls; the three files come
-- as one review, the user changes the proposed side of two of them and accepts once. The
-- files and buffers hold the user's versions; pytest checks what the model was told.
local H = require('harness')
local ink = require('ink')
local review = require('ink.review')

local repo = assert(os.getenv('INK_TEST_REPO'))
local ws = assert(os.getenv('INK_TEST_WORKSPACE'))
vim.cmd.cd(ws)

vim.lsp.config('jedi', {
  cmd = { repo .. '/.venv/bin/jedi-language-server' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml' },
})
vim.lsp.enable('jedi')
ink.setup({
  cmd = { repo .. '/.venv/bin/python', '-m', 'ink_ls', '--stdio' },
  model = { baseUrl = os.getenv('INK_TEST_BASE_URL'), model = 'fake-model', apiKeyEnv = 'INK_TEST_API_KEY' },
  approval = 'ask',
})

local USER_UTIL = {
  'def salute(name: str) -> str:',
  '    """Greet someone, politely."""',
  '    return f"hello {name}"',
}
local USER_MAIN = { 'from pkg.util import salute', '', '', 'def run() -> str:', '    return salute("everyone")' }

--- The review's file whose path ends with `rel`.
local function file_of(r, rel)
  for _, f in ipairs(r.files) do
    if vim.endswith(f.change.path, '/' .. rel) then
      return f
    end
  end
  error('no file ' .. rel .. ' in the review')
end

H.case('rename edited by the user: two files of the one review hold their versions', function()
  vim.cmd.edit('pkg/main.py')
  local main = vim.api.nvim_get_current_buf()
  vim.cmd.edit('pkg/util.py')
  local util = vim.api.nvim_get_current_buf()
  H.wait_for(function()
    local jedi = vim.lsp.get_clients({ name = 'jedi' })[1]
    return jedi and jedi.initialized and jedi.attached_buffers[util]
  end, 'jedi attached to the Python buffers', 30000)

  local opened, closed = 0, nil
  local on_open = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkReviewOpen',
    callback = function()
      opened = opened + 1
      vim.schedule(function()
        local r = review.active()
        H.eq(3, #r.files, 'the three files in one review')
        -- typed into two proposed buffers, as a user would, then accepted with the key
        vim.api.nvim_buf_set_lines(file_of(r, 'pkg/util.py').right, 0, -1, true, USER_UTIL)
        local right = file_of(r, 'pkg/main.py').right
        vim.api.nvim_set_current_win(vim.fn.win_findbuf(right)[1]) -- its tab page
        vim.api.nvim_buf_set_lines(right, 0, -1, true, USER_MAIN)
        vim.cmd('normal ga')
      end)
    end,
  })
  local on_close = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkReviewClose',
    callback = function(ev)
      closed = ev.data
    end,
  })
  local done
  ink.ask('[case:rn-edit] rename greet to salute', {
    on_done = function(err, result)
      done = { err = err, result = result }
    end,
  })
  H.wait_for(function()
    return done ~= nil
  end, 'the end of the turn', 90000)
  vim.api.nvim_del_autocmd(on_open)
  vim.api.nvim_del_autocmd(on_close)
  H.eq(nil, done.err)
  H.eq(1, opened, 'one decision for the whole rename')
  H.eq(true, closed and closed.accepted and closed.edited, 'the review closed as accepted and edited')

  H.eq(table.concat(USER_UTIL, '\n') .. '\n', H.read(ws .. '/pkg/util.py'), 'util.py on disk')
  H.eq(table.concat(USER_MAIN, '\n') .. '\n', H.read(ws .. '/pkg/main.py'), 'main.py on disk')
  H.eq('from pkg.util import salute\n\nprint(salute("x"))\n', H.read(ws .. '/pkg/other.py'), 'other.py as proposed')
  H.eq(USER_UTIL, vim.api.nvim_buf_get_lines(util, 0, -1, true), 'the util.py buffer')
  H.eq(USER_MAIN, vim.api.nvim_buf_get_lines(main, 0, -1, true), 'the main.py buffer')
  for _, b in ipairs({ main, util }) do
    H.eq(false, vim.bo[b].modified, 'buffer saved: ' .. vim.api.nvim_buf_get_name(b))
  end
end)

H.run()

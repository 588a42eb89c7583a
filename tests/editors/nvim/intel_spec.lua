-- The `lsp` tool answered by Neovim's own language server: this headless Neovim runs
-- jedi-language-server for Python buffers beside ink-ls. The same questions are first asked
-- of jedi directly through vim.lsp (reported as DIRECT, pytest compares), then the scripted
-- model asks them through ink-ls; the rename touches three files, one of them not loaded.
-- Then the chat input's completion of @ mentions and / commands.
local H = require('harness')
local ink = require('ink')

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

local function uri(rel)
  return vim.uri_from_fname(ws .. '/' .. rel)
end

local function jedi()
  return vim.lsp.get_clients({ name = 'jedi' })[1]
end

--- Asks jedi directly (the editor's view, no ink-ls code) and returns the raw result.
local function direct(method, params, b)
  local reply = assert(jedi():request_sync(method, params, 20000, b))
  assert(not reply.err, vim.inspect(reply.err))
  return reply.result
end

local answered = {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'InkLanguageFeatures',
  callback = function(ev)
    answered[#answered + 1] = ev.data
  end,
})

local reviews = {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'InkReviewOpen',
  callback = function(ev)
    reviews[#reviews + 1] = ev.data
  end,
})

local function ask(prompt, during)
  local done
  ink.ask(prompt, {
    on_done = function(err, result)
      done = { err = err, result = result }
    end,
  })
  if during then
    during()
  end
  H.wait_for(function()
    return done ~= nil
  end, 'the end of the turn', 90000)
  H.eq(nil, done.err)
  H.eq('end_turn', done.result.stopReason)
end

H.case('definition, references, hover and rename through the editor equal jedi asked directly', function()
  vim.cmd.edit('pkg/main.py')
  local main = vim.api.nvim_get_current_buf()
  vim.cmd.edit('pkg/util.py')
  local util = vim.api.nvim_get_current_buf()
  H.wait_for(function()
    return jedi() and jedi().initialized and jedi().attached_buffers[util]
  end, 'jedi attached to the Python buffers', 30000)
  local enc = jedi().offset_encoding
  local at_call = { line = 4, character = 11 } -- `greet` in main.py's `return greet(…)`
  local at_def = { line = 0, character = 4 } -- `greet` in util.py's `def greet`
  local doc = function(b)
    return { uri = vim.uri_from_bufnr(b) }
  end
  H.report('DIRECT ' .. vim.json.encode({
    encoding = enc,
    definition = direct('textDocument/definition', { textDocument = doc(main), position = at_call }, main),
    references = direct('textDocument/references', {
      textDocument = doc(util),
      position = at_def,
      context = { includeDeclaration = true },
    }, util),
    hover = direct('textDocument/hover', { textDocument = doc(util), position = at_def }, util),
    rename = direct('textDocument/rename', { textDocument = doc(util), position = at_def, newName = 'salute' }, util),
  }))
  H.eq(-1, vim.fn.bufnr(ws .. '/pkg/other.py'), 'other.py is not loaded before the turn')

  ask('[case:lsp] where is greet used? then rename it to salute', function()
    -- the rename is one review of the three files' diffs, accepted once
    H.wait_for(function()
      return #reviews == 1
    end, 'the review of the rename', 60000)
    H.eq({ 'pkg/main.py', 'pkg/other.py', 'pkg/util.py' }, vim.tbl_map(function(f)
      return vim.fn.fnamemodify(f.path, ':.')
    end, reviews[1].files), 'files in the one review')
    vim.api.nvim_feedkeys('ga', 'x', false) -- the accept key, typed in the diff window
  end)
  H.eq(1, #reviews, 'one decision for the whole rename')

  H.eq(5, #answered, 'ink/languageFeatures questions answered by the editor')
  for i, op in ipairs({ 'definition', 'definition', 'references', 'hover', 'rename' }) do
    H.eq({ operation = op, available = true, servers = { 'jedi' } }, answered[i], 'question ' .. i)
  end
  -- other.py was loaded to ask its server, and not shown
  local other = vim.fn.bufnr(ws .. '/pkg/other.py')
  H.eq(true, other ~= -1 and vim.api.nvim_buf_is_loaded(other), 'other.py loaded')
  H.eq(-1, vim.fn.bufwinid(other), 'other.py shown in no window')
  -- the open buffers show the rename, and so does other.py, loaded (hidden) to ask its server
  H.wait_for(function()
    return vim.api.nvim_buf_get_lines(main, 0, 1, false)[1] == 'from pkg.util import salute'
  end, 'main.py buffer renamed')
  H.eq('def salute(name: str) -> str:', vim.api.nvim_buf_get_lines(util, 0, 1, false)[1])
  H.eq('print(salute("x"))', vim.api.nvim_buf_get_lines(other, 2, 3, false)[1])
  for _, b in ipairs({ main, util, other }) do
    H.eq(false, vim.bo[b].modified, 'buffer saved after the rename: ' .. vim.api.nvim_buf_get_name(b))
  end
end)

H.case('a file no editor server covers falls through: no language server for .txt files', function()
  answered = {}
  ask('[case:lsp-txt] what is in notes')
  H.eq({ { operation = 'definition', available = false, servers = {} } }, answered)
end)

H.case('chat input completes @ paths, @selection and / commands from the server', function()
  local complete = require('ink.complete')
  local root = ws
  local _, items = complete.items('look at @pk', 0, root)
  H.eq({ { word = 'pkg/', menu = 'folder' } }, items, '@pk')
  local start, inside = complete.items('see @pkg/ut', 0, root)
  H.eq(5, start, 'the word starts after @')
  H.eq({ 'pkg/util.py' }, vim.tbl_map(function(i)
    return i.word
  end, inside))
  local _, sel = complete.items('@se', 0, root)
  H.eq('selection', sel[1].word)
  H.eq(nil, (complete.items('mail me at user@pk', 0, root)), 'user@host is no mention')
  local _, slash = complete.items('/co', 0, root)
  H.eq('compact', slash[1] and slash[1].word, '/co completes /compact')
  H.eq(nil, (complete.items('x /co', 0, root)), '/ only at the start of the prompt')
  -- the real omnifunc in the input area, typed like a user
  vim.cmd('Ink')
  local _, input = require('ink.chat_window').windows()
  vim.api.nvim_set_current_win(assert(input))
  vim.api.nvim_feedkeys(vim.keycode('ilook at @pkg/ma<C-x><C-o><Esc>'), 'x', false)
  H.eq('look at @pkg/main.py', vim.api.nvim_get_current_line())
end)

H.run()

-- The plugin's `hooks` and `permissions` options reach the real server: set with setup() while
-- ink-ls runs they apply to the next turn (workspace/didChangeConfiguration), and a later
-- setup() without them drops them (the plugin sends {} for a cleared one).
local H = require('harness')
local chat_window = require('ink.chat_window')

local ws = assert(os.getenv('INK_TEST_WORKSPACE'))
local base_url = assert(os.getenv('INK_TEST_BASE_URL'))
local guard = assert(os.getenv('INK_TEST_GUARD'))
local repo = assert(os.getenv('INK_TEST_REPO'))
vim.cmd.cd(ws)

local function setup(extra)
  require('ink').setup(vim.tbl_extend('force', {
    cmd = { repo .. '/.venv/bin/python', '-m', 'ink_ls', '--stdio' },
    model = { baseUrl = base_url, model = 'fake-model', apiKeyEnv = 'INK_TEST_API_KEY' },
    approval = 'auto',
  }, extra or {}))
end

local function send(prompt)
  local done
  vim.api.nvim_create_autocmd('User', {
    pattern = 'InkTurnEnd',
    once = true,
    callback = function(ev)
      done = ev.data
    end,
  })
  local _, input = chat_window.windows()
  vim.api.nvim_set_current_win((assert(input, 'the input window')))
  vim.api.nvim_feedkeys(vim.keycode('i' .. prompt .. '<C-s>'), 'x', false)
  H.wait_for(function()
    return done
  end, 'the end of the turn for ' .. prompt, 40000)
  return done.result
end

local function exists(name)
  return vim.uv.fs_stat(ws .. '/' .. name) ~= nil
end

H.case('setup() with hooks and permissions while ink-ls runs applies them; without them drops them', function()
  setup()
  vim.cmd('Ink')
  H.eq('end_turn', send('[case:rm-a] remove a').stopReason)
  H.eq(false, exists('a.txt'), 'no hook yet: rm ran')

  setup({ hooks = { PreToolUse = { { matcher = 'Bash', hooks = { { type = 'command', command = guard } } } } } })
  H.eq('end_turn', send('[case:rm-b] remove b').stopReason)
  H.eq(true, exists('b.txt'), 'the PreToolUse hook of the options refused rm')

  setup({ permissions = { deny = { 'Bash(rm c.txt)' } } })
  H.eq('end_turn', send('[case:rm-c] remove c').stopReason)
  H.eq(true, exists('c.txt'), 'the deny rule of the options refused rm')

  setup()
  H.eq('end_turn', send('[case:rm-d] remove d').stopReason)
  H.eq(false, exists('d.txt'), 'hooks and rules dropped: rm ran')
end)

H.run()

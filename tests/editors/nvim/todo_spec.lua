-- The model's to-do list (todo_write) in the chat buffer against the real ink-ls server and a
-- scripted model: one checklist block with [ ] / [~] / [x] lines, rewritten in place each time
-- the model sends the list again (checked while the turn waits on a command approval, and at
-- its end); the list's calls get no call line of their own; a new session starts a new block.
local H = require('harness')
local chat = require('ink.chat')
local chat_render = require('ink.chat_render')
local chat_todos = require('ink.chat_todos')
local chat_window = require('ink.chat_window')

local ws = assert(os.getenv('INK_TEST_WORKSPACE'))
vim.cmd.cd(ws)
vim.o.columns, vim.o.lines = 160, 50

local chat_buf = chat_render.buf()

local function lines()
  return vim.api.nvim_buf_get_lines(chat_buf, 0, -1, true)
end

--- The 0-based rows of the lines that start with `prefix`.
local function rows_of(prefix)
  local rows = {}
  for i, l in ipairs(lines()) do
    if vim.startswith(l, prefix) then
      rows[#rows + 1] = i - 1
    end
  end
  return rows
end

--- Sends a prompt from the input area; `during` runs while the turn goes on.
local function send(prompt, during)
  local done
  local id = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkTurnEnd',
    once = true,
    callback = function(ev)
      done = ev.data
    end,
  })
  local _, input = chat_window.windows()
  vim.api.nvim_set_current_win((assert(input, 'the input window')))
  vim.api.nvim_feedkeys(vim.keycode('i' .. prompt .. '<C-s>'), 'x', false)
  if during then
    during()
  end
  H.wait_for(function()
    return done
  end, 'the end of the turn for ' .. prompt, 40000)
  pcall(vim.api.nvim_del_autocmd, id)
  if done.err then
    error('prompt failed: ' .. vim.inspect(done.err))
  end
  return done.result
end

H.case('chat_todos: a list of todo_write arguments, its lines; anything else is not a list', function()
  H.eq(nil, chat_todos.items({ todos = { { content = '', status = 'pending' } } }))
  H.eq(nil, chat_todos.items({ todos = { { content = 'x', status = 'done' } } }))
  H.eq(nil, chat_todos.items({ command = 'ls', todos = {} }))
  H.eq(nil, chat_todos.items({ path = 'a.txt' }))
  local items = assert(chat_todos.items({ todos = { { content = 'a' }, { content = 'b', status = 'completed' } } }))
  H.eq({ '**To-do** · 1 of 2 done', '- [ ] a', '- [x] b' }, chat_todos.lines(items))
end)

H.case('todo_write is one checklist in the chat, rewritten in place as the list changes', function()
  vim.cmd('Ink')
  local first_row
  local result = send('[case:todo] read and sum up', function()
    -- the turn waits on the command's approval: the list was sent twice by then
    H.wait_event('InkApprovalRequest', nil, nil, 20000)
    H.eq(1, #rows_of('**To-do**'), 'one checklist so far')
    first_row = rows_of('**To-do**')[1]
    H.eq({ '**To-do** · 1 of 3 done', '- [x] read the README', '- [~] count the words', '- [ ] sum up' },
      vim.list_slice(lines(), first_row + 1, first_row + 4))
    H.eq({}, rows_of('▸ to-do list'), 'no call line for the list')
    H.wait_event('InkApprovalDone', function()
      chat.answer(true)
    end)
  end)
  H.eq('end_turn', result.stopReason)
  H.eq({ first_row }, rows_of('**To-do**'), 'the same block, in place')
  H.eq({
    '## You',
    '',
    '[case:todo] read and sum up',
    '',
    '## Ink',
    '**To-do** · 3 of 3 done',
    '- [x] read the README',
    '- [x] count the words',
    '- [x] sum up',
    '',
    '▸ read README.md',
    '```',
    '# Demo',
    '',
    'Start the project with `make start`.',
    '```',
    '▸ bash: wc -w README.md',
    '```',
    'stdout:',
    '8 README.md',
    '```',
    '',
    'Eight words.',
    '',
  }, vim.list_slice(lines(), 1, 24), 'chat lines')
end)

H.case('a new session starts a new checklist', function()
  vim.cmd('InkNewSession')
  H.eq({}, rows_of('**To-do**'), 'the chat is empty')
  local result = send('[case:todo-again] one step')
  H.eq('end_turn', result.stopReason)
  H.eq(1, #rows_of('**To-do**'))
  H.eq({ '**To-do** · 0 of 1 done', '- [~] the one step' }, vim.list_slice(lines(), rows_of('**To-do**')[1] + 1, rows_of('**To-do**')[1] + 2))
end)

H.run()

-- End-to-end cases: this headless Neovim runs the plugin against the real ink-ls server
-- (started by the plugin over stdio) and a scripted model on loopback (in pytest). The model
-- script picks its replies by the "[case:…]" tag in each prompt.
local H = require('harness')
local ink = require('ink')
local transcript = require('ink.transcript')

local ws = assert(os.getenv('INK_TEST_WORKSPACE'))
vim.cmd.cd(ws)

--- progress values of ink's client, in arrival order
local progress = {}
--- vim.lsp.status() as seen while a report was being handled
local statuses = {}
vim.api.nvim_create_autocmd('LspProgress', {
  callback = function(ev)
    local c = vim.lsp.get_client_by_id(ev.data.client_id)
    if c and c.name == 'ink' then
      progress[#progress + 1] = vim.deepcopy(ev.data.params.value)
      if ev.data.params.value.kind == 'report' then
        statuses[#statuses + 1] = vim.lsp.status()
      end
    end
  end,
})
local chunks = 0
vim.api.nvim_create_autocmd('User', {
  pattern = 'InkUpdate',
  callback = function(ev)
    if ev.data.update.sessionUpdate == 'agent_message_chunk' then
      chunks = chunks + 1
    end
  end,
})
-- Types the choice into the approval prompt when it opens. The prompt itself is the real,
-- default vim.ui.select (inputlist()); only the keystrokes come from the test.
local approval_keys
vim.api.nvim_create_autocmd('User', {
  pattern = 'InkApprovalRequest',
  callback = function()
    if approval_keys then
      vim.api.nvim_input(approval_keys)
      approval_keys = nil
    end
  end,
})

--- Asks and waits for the end of the turn; returns the prompt result.
---@param prompt string
---@param opts? table
---@param during? fun() runs (in the case coroutine) while the turn is going on
local function ask(prompt, opts, during)
  local done
  opts = vim.tbl_extend('force', opts or {}, {
    on_done = function(err, result)
      done = { err = err, result = result }
    end,
  })
  ink.new_session()
  ink.ask(prompt, opts)
  local function finished()
    return done
  end
  if during then
    local ok, err = pcall(during)
    if not ok then
      -- leave no turn or review behind for the next case
      require('ink.review').reject('test failed')
      ink.cancel()
      pcall(H.wait_for, finished, 'the cancelled turn', 15000)
      error(err, 0)
    end
  end
  H.wait_for(finished, 'the end of the turn for ' .. prompt, 30000)
  if done.err then
    error('prompt failed: ' .. vim.inspect(done.err))
  end
  return done.result
end

local function open(rel)
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/' .. rel))
  local b = vim.api.nvim_get_current_buf()
  -- as a user would: the file is known to ink-ls (didOpen sent) before anything is typed
  vim.wait(10000, function()
    return #vim.lsp.get_clients({ bufnr = b, name = 'ink' }) > 0
  end)
  return b
end

H.case('ask: progress, streamed answer and tool call in the transcript', function()
  open('README.md')
  local result = ask('[case:ask] read README.md and tell me how to start the project')
  H.eq('end_turn', result.stopReason)
  H.eq('Start it with `make start`, then open http://localhost:8000.', result.text)
  local kinds = vim.tbl_map(function(v)
    return v.kind
  end, progress)
  H.eq('begin', kinds[1], 'first progress')
  H.eq('end', kinds[#kinds], 'last progress')
  H.eq('Ink', progress[1].title)
  H.eq('done', progress[#progress].message)
  H.report('PROGRESS ' .. vim.json.encode(progress))
  H.contains(table.concat(statuses, '\n'), 'read README.md', 'vim.lsp.status() during the turn')
  local reports = vim.tbl_map(function(v)
    return v.message
  end, progress)
  H.contains(table.concat(reports, '\n'), 'read README.md — 1 of 1 done', 'progress reports')
  local text = transcript.text()
  H.contains(text, '## You · README.md')
  H.contains(text, '● read README.md  [completed')
  H.contains(text, 'Start it with `make start`, then open http://localhost:8000.\n  › done · 20 tokens in, 10 out')
  if chunks < 3 then
    error('the answer was not streamed: ' .. chunks .. ' chunks')
  end
  if #vim.fn.win_findbuf(transcript.buf()) == 0 then
    error('the transcript is not shown in a window')
  end
end)

--- Waits for the end of a turn started by a command (not through ask()).
---@param trigger fun()
local function turn_of(trigger)
  ink.new_session()
  local data = H.wait_event('InkTurnEnd', trigger, nil, 30000)
  if data.err then
    error('prompt failed: ' .. vim.inspect(data.err))
  end
  return data.result
end

H.case(':InkAsk from a visual selection sends the range', function()
  open('app.py')
  local result = turn_of(function()
    -- typed as a user would: select lines 2-3 linewise, then the command
    vim.api.nvim_feedkeys(vim.keycode('2GVj:InkAsk [case:selection] explain these lines<CR>'), 'x', false)
  end)
  H.eq('end_turn', result.stopReason)
  H.contains(transcript.text(), '## You · app.py:2-3')
end)

H.case(':InkAsk from a characterwise selection sends the exact characters', function()
  open('greet.txt')
  local result = turn_of(function()
    vim.api.nvim_feedkeys(vim.keycode('1G0wve:InkAsk [case:selection-chars] what is this word?<CR>'), 'x', false)
  end)
  H.eq('end_turn', result.stopReason)
  H.contains(transcript.text(), '## You · greet.txt:1-1')
end)

H.case(':InkAsk without a prompt asks with vim.ui.input', function()
  open('README.md')
  local result = turn_of(function()
    vim.api.nvim_input('[case:input] what is this?<CR>') -- answered in the real input() prompt
    vim.cmd('InkAsk')
  end)
  H.eq('end_turn', result.stopReason)
  H.contains(transcript.text(), '[case:input] what is this?')
end)

--- Runs an edit case: waits for the review, checks the diff view, then decides.
---@param tag string
---@param decide fun()
local function edit_case(tag, proposed, decide)
  local path = ws .. '/app.py'
  local before = H.read(path)
  local b = open('app.py')
  local tick = vim.api.nvim_buf_get_changedtick(b)
  local opened
  local result = ask(('[case:%s] make x two'):format(tag), nil, function()
    opened = H.wait_event('InkReviewOpen', nil, nil, 20000)
    local wins = vim.api.nvim_tabpage_list_wins(0)
    H.eq(2, #wins, 'diff windows')
    H.eq({ true, true }, { vim.wo[wins[1]].diff, vim.wo[wins[2]].diff }, 'diff mode')
    H.eq(vim.split(vim.trim(before), '\n'), vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[1]), 0, -1, true))
    H.contains(table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[2]), 0, -1, true), '\n'), proposed)
    H.eq(before, H.read(path), 'disk while the review is open')
    -- what LspProgress (and so statuslines) shows while the agent waits for the user
    H.eq('waiting for approval: edit app.py', progress[#progress].message, 'progress during the review')
    decide()
  end)
  H.contains(opened.label, 'ink: edit app.py (')
  return result, before, b, tick
end

H.case('edit accepted in the diff view: buffer and file changed', function()
  local result, before, b = edit_case('edit-accept', 'x = 2', function()
    vim.api.nvim_feedkeys('ga', 'x', false) -- the accept key, typed in the diff window
  end)
  H.eq('end_turn', result.stopReason)
  local after = H.read(ws .. '/app.py')
  H.eq(before:gsub('x = 1', 'x = 2'), after, 'file on disk')
  H.eq(vim.split(vim.trim(after), '\n'), vim.api.nvim_buf_get_lines(b, 0, -1, true), 'buffer')
  H.eq(false, vim.bo[b].modified)
  H.contains(transcript.text(), '● edit app.py  [completed')
end)

H.case('edit rejected in the diff view: buffer and file unchanged', function()
  local path = ws .. '/app.py'
  local result, before, b, tick = edit_case('edit-reject', 'x = 3', function()
    vim.cmd('InkReject keep x as it is')
  end)
  H.eq('end_turn', result.stopReason)
  H.eq(before, H.read(path), 'file on disk')
  H.eq(tick, vim.api.nvim_buf_get_changedtick(b), 'buffer changedtick')
  H.contains(transcript.text(), '✗ edit app.py  [failed')
end)

H.case('command approved with vim.ui.select: it runs', function()
  approval_keys = '1<CR>' -- "Allow once"
  local result = ask('[case:cmd-allow] create ran.txt')
  H.eq('end_turn', result.stopReason)
  H.eq('approved\n', H.read(ws .. '/ran.txt'))
  H.contains(transcript.text(), 'you chose: Allow once')
  H.contains(transcript.text(), '● bash: echo approved > ran.txt  [completed')
end)

H.case('command rejected with vim.ui.select: it does not run', function()
  approval_keys = '4<CR>' -- "Reject" (after "Always in this project", offered for commands)
  local result = ask('[case:cmd-reject] create never.txt')
  H.eq('end_turn', result.stopReason)
  H.eq(nil, vim.uv.fs_stat(ws .. '/never.txt'), 'never.txt')
  H.contains(transcript.text(), 'you chose: Reject')
end)

H.case('cancel: :InkCancel ends the turn as cancelled', function()
  local first = #progress + 1
  local result = ask('[case:cancel] think for a long time', nil, function()
    local seen = chunks
    H.wait_for(function()
      return chunks > seen
    end, 'the first streamed words of the answer')
    H.contains(ink.status(), 'Ink: ', 'ink.status() while the turn runs')
    vim.cmd('InkCancel')
  end)
  H.eq('cancelled', result.stopReason)
  H.eq('cancelled', progress[#progress].message, 'progress end')
  H.eq('begin', progress[first].kind)
  -- idle: no progress, the share of the context window in use
  H.eq(nil, ink.status():find('Ink: ', 1, true), 'no progress in the status after the turn')
  H.contains(ink.status(), 'Ink ', 'status after the turn')
  H.contains(ink.status(), '/32.8k (', 'the window (the endpoint names none: 32768)')
  H.contains(transcript.text(), 'stopped: cancelled')
end)

H.case('the agent reads the unsaved text of an open buffer', function()
  local b = open('notes.txt')
  vim.api.nvim_buf_set_lines(b, 0, -1, true, { 'unsaved words from the buffer' })
  open('README.md')
  local result = ask('[case:unsaved] what do my notes say?')
  H.eq('end_turn', result.stopReason)
  H.contains(transcript.text(), '● read notes.txt  [completed')
  H.eq('on disk\n', H.read(ws .. '/notes.txt'), 'the file itself is untouched')
  vim.cmd('bwipeout! ' .. b)
end)

H.case('cancel while an edit is under review closes the diff and changes nothing', function()
  local path = ws .. '/app.py'
  local before = H.read(path)
  open('app.py')
  local tabs = #vim.api.nvim_list_tabpages()
  local closed
  local result = ask('[case:edit-cancel] make x four', nil, function()
    H.wait_event('InkReviewOpen', nil, nil, 20000)
    closed = H.wait_event('InkReviewClose', function()
      vim.cmd('InkCancel')
    end, nil, 20000)
  end)
  H.eq('cancelled', result.stopReason)
  H.eq(false, closed.applied)
  H.eq(tabs, #vim.api.nvim_list_tabpages(), 'the review tab closed')
  H.eq(before, H.read(path), 'file on disk')
end)

H.case('setup() again sends the new settings (approval readonly refuses without asking)', function()
  local asked = false
  local id = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkApprovalRequest',
    callback = function()
      asked = true
    end,
  })
  ink.setup(vim.tbl_extend('force', require('ink.config').options, { approval = 'readonly' }))
  local ok, result = pcall(ask, '[case:readonly] create blocked.txt')
  vim.api.nvim_del_autocmd(id)
  ink.setup(vim.tbl_extend('force', require('ink.config').options, { approval = 'ask' }))
  assert(ok, result)
  H.eq('end_turn', result.stopReason)
  H.eq(false, asked, 'an approval prompt was shown')
  H.eq(nil, vim.uv.fs_stat(ws .. '/blocked.txt'), 'blocked.txt')
end)

H.case('approval auto: an open buffer gets the edit without a diff, the file is written, u undoes it', function()
  local path = ws .. '/auto.txt'
  local b = open('auto.txt')
  vim.api.nvim_buf_set_lines(b, -1, -1, true, { 'unsaved' }) -- typed, not written
  local tabs = #vim.api.nvim_list_tabpages()
  local reviewed, asked, applied = false, false, nil
  local ids = {
    vim.api.nvim_create_autocmd('User', {
      pattern = { 'InkReviewOpen', 'InkApprovalRequest' },
      callback = function(ev)
        if ev.match == 'InkReviewOpen' then
          reviewed = true
        else
          asked = true
        end
      end,
    }),
    vim.api.nvim_create_autocmd('User', {
      pattern = 'InkEditApplied',
      callback = function(ev)
        applied = ev.data
      end,
    }),
  }
  ink.setup(vim.tbl_extend('force', require('ink.config').options, { approval = 'auto' }))
  local ok, result = pcall(ask, '[case:auto-edit] shout two')
  for _, id in ipairs(ids) do
    vim.api.nvim_del_autocmd(id)
  end
  ink.setup(vim.tbl_extend('force', require('ink.config').options, { approval = 'ask' }))
  assert(ok, result)
  H.eq('end_turn', result.stopReason)
  H.eq(false, reviewed, 'a diff review opened')
  H.eq(false, asked, 'an approval prompt was shown')
  H.eq(tabs, #vim.api.nvim_list_tabpages(), 'tab pages')
  H.eq(true, applied and applied.applied, 'InkEditApplied')
  H.contains(applied.label, 'ink: edit auto.txt (')
  H.eq({ 'one', 'TWO', 'unsaved' }, vim.api.nvim_buf_get_lines(b, 0, -1, true), 'buffer')
  H.eq('one\nTWO\nunsaved\n', H.read(path), 'file on disk')
  H.eq(false, vim.bo[b].modified, 'buffer written')
  vim.api.nvim_buf_call(b, function()
    vim.cmd('normal! u')
  end)
  H.eq({ 'one', 'two', 'unsaved' }, vim.api.nvim_buf_get_lines(b, 0, -1, true), 'buffer after u')
  vim.cmd('bwipeout! ' .. b)
end)

H.case('checkhealth ink: the MCP servers of the running server', function()
  vim.cmd('checkhealth ink')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, true), '\n')
  H.contains(text, 'OK MCP server time (user, stdio): connected, 2 tools')
  H.contains(text, 'ERROR MCP server gone (user, stdio): failed: cannot run the command: ')
  vim.cmd('bwipeout')
end)

H.case('vim.lsp.enable("ink") reuses the running client for new files', function()
  local before = vim.lsp.get_clients({ name = 'ink' })
  H.eq(1, #before, 'ink clients before')
  vim.lsp.enable('ink')
  local b = open('later.txt')
  H.wait_for(function()
    return before[1].attached_buffers[b]
  end, 'later.txt attached to the running client')
  -- vim.lsp.enable() reuses a client with the same name and root: the config's root rule
  -- must give the root the running client (started by :InkAsk) has
  local root
  vim.lsp.config.ink.root_dir(b, function(dir)
    root = dir
  end)
  H.eq(before[1].root_dir, root, 'root of the enable() path')
  H.eq(vim.fs.normalize(ws), vim.fs.normalize(root), 'workspace root')
  H.eq(1, #vim.lsp.get_clients({ name = 'ink' }), 'ink clients after')
  vim.lsp.enable('ink', false)
end)

H.case('checkhealth ink: server, version and endpoint', function()
  vim.cmd('checkhealth ink')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, true), '\n')
  H.report('HEALTH ' .. vim.json.encode(text))
  H.contains(text, 'OK server command found')
  H.contains(text, 'OK ink-ls is running, protocol 0.1.0')
  H.contains(text, 'OK model endpoint http://127.0.0.1:')
  H.contains(text, 'compaction: at 80% of the window (model.compactThreshold)')
  vim.cmd('bwipeout')
end)

H.run()

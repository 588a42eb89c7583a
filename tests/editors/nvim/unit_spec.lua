-- Unit tests of the plugin's Lua logic, run inside headless Neovim (no server needed).
local H = require('harness')
local edit = require('ink.edit')
local config = require('ink.config')
local transcript = require('ink.transcript')
local review = require('ink.review')
local approval = require('ink.approval')
local protocol = require('ink.protocol')

local function pos(l, c)
  return { line = l, character = c }
end
local function te(l1, c1, l2, c2, text)
  return { range = { start = pos(l1, c1), ['end'] = pos(l2, c2) }, newText = text }
end

H.case('edit.apply replaces, inserts and deletes against the original text', function()
  local text = 'alpha\nbeta\ngamma\n'
  local out = edit.apply(text, {
    te(2, 0, 2, 5, 'GAMMA'),
    te(0, 0, 0, 0, '# '),
    te(1, 0, 2, 0, ''),
  }, 'utf-16')
  H.eq('# alpha\nGAMMA\n', out)
end)

H.case('edit.apply counts characters in the position encoding', function()
  local text = 'aé😀b\n' -- é: 2 bytes, 1 utf-16 unit; 😀: 4 bytes, 2 utf-16 units
  H.eq('aé😀X\n', edit.apply(text, { te(0, 4, 0, 5, 'X') }, 'utf-16'))
  H.eq('aé😀X\n', edit.apply(text, { te(0, 7, 0, 8, 'X') }, 'utf-8'))
  H.eq('aé😀X\n', edit.apply(text, { te(0, 3, 0, 4, 'X') }, 'utf-32'))
end)

H.case('edit.apply clamps past-the-end positions and keeps order of same-position inserts', function()
  H.eq('ab\nNEW', edit.apply('ab\nold', { te(1, 0, 99, 0, 'NEW') }, 'utf-16'))
  H.eq('12x', edit.apply('x', { te(0, 0, 0, 0, '1'), te(0, 0, 0, 0, '2') }, 'utf-16'))
  local out, err = edit.apply('abcdef', { te(0, 0, 0, 3, 'X'), te(0, 2, 0, 4, 'Y') }, 'utf-16')
  H.eq(nil, out)
  H.eq('overlapping text edits', err)
end)

H.case('edit.normalize groups documentChanges by file and refuses renames', function()
  local uri = vim.uri_from_fname('/tmp/ws/new.txt')
  local files = assert(edit.normalize({
    documentChanges = {
      { kind = 'create', uri = uri },
      { textDocument = { uri = uri, version = vim.NIL }, edits = { te(0, 0, 0, 0, 'hi\n') } },
    },
  }))
  H.eq(1, #files)
  H.eq(true, files[1].create)
  H.eq('/tmp/ws/new.txt', files[1].path)
  H.eq(nil, files[1].version)
  H.eq('hi\n', edit.propose(files[1], '', 'utf-16'))
  local versioned = assert(edit.normalize({
    documentChanges = { { textDocument = { uri = uri, version = 4 }, edits = {} } },
  }))
  H.eq(4, versioned[1].version)
  local changes = assert(edit.normalize({ changes = { [uri] = { te(0, 0, 0, 0, 'x') } } }))
  H.eq(false, changes[1].create)
  local none, err = edit.normalize({ documentChanges = { { kind = 'rename', oldUri = uri, newUri = uri } } })
  H.eq(nil, none)
  H.eq('unsupported change in the edit: rename', err)
  H.eq('the edit changes no file', select(2, edit.normalize({})))
end)

H.case('edit.to_lines/from_lines round-trip and strip_annotations drops annotation ids', function()
  for _, t in ipairs({ '', 'a', 'a\n', 'a\nb', 'a\n\n' }) do
    local lines, eol = edit.to_lines(t)
    H.eq(t, edit.from_lines(lines, eol), 'round trip of ' .. vim.inspect(t))
  end
  local e = te(0, 0, 0, 0, 'x')
  e.annotationId = 'ink-call_1'
  H.eq({ te(0, 0, 0, 0, 'x') }, edit.strip_annotations({ e }))
  H.eq({ 2, 1 }, { edit.line_stats('a\nb\n', 'a\nc\nd\n') })
end)

H.case('config.merge keeps defaults for invalid keys and settings() builds the wire shape', function()
  local merged, problems = config.merge({
    approval = 'sometimes',
    model = { baseUrl = 'http://127.0.0.1:1/v1', maxTokens = 100 },
    cmd = { '/opt/ink-ls', '--stdio' },
  })
  H.eq({ "approval: expected 'ask', 'auto', 'readonly' or 'plan'" }, problems)
  H.eq('ask', merged.approval)
  H.eq({ '/opt/ink-ls', '--stdio' }, merged.cmd)
  H.eq({
    approval = 'ask',
    model = { baseUrl = 'http://127.0.0.1:1/v1', maxTokens = 100 },
  }, config.settings(merged))
  H.eq({ approval = 'ask' }, config.settings(config.merge({})))
  local _, bad = config.merge({ model = { base_url = 'x' }, approval_timeout = -1 })
  H.eq(2, #bad)
  -- JSON must not turn an empty model into an array: it is left out
  H.eq('{"approval":"auto"}', vim.json.encode(config.settings(config.merge({ approval = 'auto', model = {} }))))
  -- the workspace's trust: sent only when stated, false included
  H.eq({ approval = 'ask', trustWorkspace = false }, config.settings(config.merge({ trust_workspace = false })))
  H.eq({ "trust_workspace: expected true or false" }, select(2, config.merge({ trust_workspace = 'yes' })))
end)

H.case('transcript streams text into lines and redraws tool lines in place', function()
  transcript.question('what is up?', 'README.md')
  transcript.append_text('Hel')
  transcript.append_text('lo\nwor')
  transcript.tool_call('call_1', 'read README.md', 'pending')
  transcript.append_text('ld')
  transcript.tool_update('call_1', 'in_progress')
  transcript.tool_update('call_1', 'completed', '12 ms')
  H.eq(table.concat({
    '## You · README.md',
    '',
    'what is up?',
    '',
    '## Ink',
    'Hello',
    'wor',
    '  ● read README.md  [completed, 12 ms]',
    'ld',
  }, '\n'), transcript.text())
end)

H.case('transcript lists a task\'s sub-agent calls indented under the task', function()
  transcript.question('survey the code')
  transcript.tool_call('call_1', 'task: survey', 'pending')
  transcript.tool_call('call_2', 'read b.py', 'pending')
  transcript.append_text('Thinking')
  transcript.tool_call('call_1/call_1', 'read a.py', 'pending', 'call_1')
  transcript.tool_call('call_1/call_2', 'grep "x" src', 'pending', 'call_1')
  transcript.tool_update('call_1/call_1', 'completed', '3 ms')
  transcript.tool_update('call_2', 'completed', '1 ms')
  transcript.tool_update('call_1', 'completed', '1.5 s')
  transcript.append_text(' more')
  local want = table.concat({
    '## Ink',
    '  ● task: survey  [completed, 1.5 s]',
    '    ● read a.py  [completed, 3 ms]',
    '    ○ grep "x" src  [pending]',
    '  ● read b.py  [completed, 1 ms]',
    'Thinking more',
  }, '\n')
  local text = transcript.text()
  H.eq(want, text:sub(-#want))
end)

H.case('protocol constants', function()
  H.eq('ink/session/prompt', protocol.methods.session_prompt)
  H.eq('ink/session/update', protocol.methods.session_update)
  H.report('PROTOCOL ' .. vim.json.encode({ methods = protocol.methods, lsp = protocol.lsp }))
end)

--- Runs review.handler the way the LSP client does (in a coroutine) for a fake request.
local function apply_edit(params)
  local box = {}
  coroutine.wrap(function()
    box.result = review.handler(nil, params, { client_id = 4242, method = 'workspace/applyEdit' })
  end)()
  return box
end

local tmp = vim.fn.tempname()
vim.fn.mkdir(tmp, 'p')

H.case('review: accept applies the edit to the buffer and writes the file', function()
  local path = tmp .. '/a.txt'
  H.write(path, 'one\ntwo\n')
  vim.cmd('tabnew') -- two tabs, the first current: the review must come back to it
  vim.cmd('tabfirst')
  local home = vim.api.nvim_get_current_tabpage()
  local tabs = #vim.api.nvim_list_tabpages()
  local opened
  local box
  opened = H.wait_event('InkReviewOpen', function()
    box = apply_edit({
      label = 'ink: edit a.txt (call_1)',
      edit = { changes = { [vim.uri_from_fname(path)] = { te(1, 0, 1, 3, 'TWO') } } },
    })
  end)
  H.eq('ink: edit a.txt (call_1)', opened.label)
  H.eq('one\nTWO\n', opened.files[1].proposed)
  -- the diff view: a new tab with two diff windows, current left, proposed right
  H.eq(tabs + 1, #vim.api.nvim_list_tabpages())
  local wins = vim.api.nvim_tabpage_list_wins(0)
  H.eq(2, #wins)
  H.eq({ true, true }, { vim.wo[wins[1]].diff, vim.wo[wins[2]].diff })
  H.eq({ 'one', 'two' }, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[1]), 0, -1, true))
  H.eq({ 'one', 'TWO' }, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[2]), 0, -1, true))
  H.eq(nil, box.result, 'answer before a decision')
  H.eq('one\ntwo\n', H.read(path), 'disk before a decision')
  vim.cmd('InkAccept')
  H.wait_for(function()
    return box.result
  end, 'the applyEdit answer')
  H.eq({ applied = true }, box.result)
  H.eq('one\nTWO\n', H.read(path))
  H.eq(tabs, #vim.api.nvim_list_tabpages(), 'the review tab closed')
  H.eq(home, vim.api.nvim_get_current_tabpage(), 'back on the tab the user was on')
  vim.cmd('tabonly')
  local b = vim.fn.bufnr(path)
  H.eq(false, vim.bo[b].modified)
end)

H.case('review: the reject keymap leaves buffer and disk untouched and says why', function()
  local path = tmp .. '/b.txt'
  H.write(path, 'keep me\n')
  vim.cmd.edit(path)
  local b = vim.api.nvim_get_current_buf()
  local tick = vim.api.nvim_buf_get_changedtick(b)
  local box
  H.wait_event('InkReviewOpen', function()
    box = apply_edit({
      edit = { documentChanges = { { textDocument = { uri = vim.uri_from_fname(path), version = vim.NIL }, edits = { te(0, 0, 1, 0, 'gone\n') } } } },
    })
  end)
  vim.api.nvim_feedkeys('gx', 'x', false) -- the documented reject key, typed in the diff window
  H.wait_for(function()
    return box.result
  end, 'the applyEdit answer')
  H.eq({ applied = false, failureReason = 'the user rejected the edit' }, box.result)
  H.eq('keep me\n', H.read(path))
  H.eq(tick, vim.api.nvim_buf_get_changedtick(b), 'buffer changedtick')
end)

H.case('review: closing the diff tab rejects; :InkReject passes the reason', function()
  local path = tmp .. '/c.txt'
  H.write(path, 'c\n')
  local uri = vim.uri_from_fname(path)
  local box
  H.wait_event('InkReviewOpen', function()
    box = apply_edit({ edit = { changes = { [uri] = { te(0, 0, 0, 1, 'C') } } } })
  end)
  vim.cmd('tabclose')
  H.wait_for(function()
    return box.result
  end, 'answer after closing')
  H.eq({ applied = false, failureReason = 'the user closed the review without accepting the edit' }, box.result)
  H.wait_event('InkReviewOpen', function()
    box = apply_edit({ edit = { changes = { [uri] = { te(0, 0, 0, 1, 'C') } } } })
  end)
  vim.cmd('InkReject use upper case only in titles')
  H.wait_for(function()
    return box.result
  end, 'answer after :InkReject')
  H.eq('the user rejected the edit: use upper case only in titles', box.result.failureReason)
  H.eq('c\n', H.read(path))
end)

H.case('review: a new file (CreateFile first) is created only on accept', function()
  local path = tmp .. '/sub/new.txt'
  local uri = vim.uri_from_fname(path)
  local params = {
    edit = {
      documentChanges = {
        { kind = 'create', uri = uri },
        { textDocument = { uri = uri, version = vim.NIL }, edits = { te(0, 0, 0, 0, 'fresh\n') } },
      },
      changeAnnotations = { x = { label = 'x', needsConfirmation = true } },
    },
  }
  local box
  H.wait_event('InkReviewOpen', function()
    box = apply_edit(params)
  end)
  vim.cmd('InkReject')
  H.wait_for(function()
    return box.result
  end, 'answer')
  H.eq(nil, vim.uv.fs_stat(path), 'no file after reject')
  H.wait_event('InkReviewOpen', function()
    box = apply_edit(params)
  end)
  vim.cmd('InkAccept')
  H.wait_for(function()
    return box.result
  end, 'answer')
  H.eq({ applied = true }, box.result)
  H.eq('fresh\n', H.read(path))
end)

H.case('review: a buffer changed during the review is not overwritten (truthful answer)', function()
  local path = tmp .. '/d.txt'
  H.write(path, 'd\n')
  vim.cmd.edit(path)
  local b = vim.api.nvim_get_current_buf()
  local box
  H.wait_event('InkReviewOpen', function()
    box = apply_edit({ edit = { changes = { [vim.uri_from_fname(path)] = { te(0, 0, 0, 1, 'D') } } } })
  end)
  vim.api.nvim_buf_set_lines(b, 0, -1, true, { 'user typed this' })
  vim.cmd('InkAccept')
  H.wait_for(function()
    return box.result
  end, 'answer')
  H.eq({ applied = false, failureReason = 'd.txt changed during the review; nothing was applied' }, {
    applied = box.result.applied,
    failureReason = box.result.failureReason:gsub('^.*/', ''),
  })
  H.eq({ 'user typed this' }, vim.api.nvim_buf_get_lines(b, 0, -1, true))
  H.eq('d\n', H.read(path))
  vim.cmd('bwipeout! ' .. b)
end)

H.case('review: an undecided review is closed unapplied when the approval time is up', function()
  local config = require('ink.config')
  local saved = config.options.approval_timeout
  config.options.approval_timeout = 0.2
  local path = tmp .. '/late.txt'
  H.write(path, 'late\n')
  local box
  local ok, err = pcall(function()
    H.wait_event('InkReviewOpen', function()
      box = apply_edit({ edit = { changes = { [vim.uri_from_fname(path)] = { te(0, 0, 0, 4, 'LATE') } } } })
    end)
    H.wait_for(function()
      return box.result
    end, 'the answer after the approval time')
  end)
  config.options.approval_timeout = saved
  assert(ok, err)
  H.eq({ applied = false, failureReason = 'no decision within 0.2s' }, box.result)
  H.eq(nil, review.active(), 'review on screen')
  H.eq('late\n', H.read(path))
end)

H.case('approval: the real vim.ui.select answers with the chosen action or vim.NIL', function()
  local actions = {
    { title = 'Allow once', optionId = 'allow_once' },
    { title = 'Always allow', optionId = 'allow_always' },
    { title = 'Reject', optionId = 'reject_once' },
  }
  local function ask(keys)
    local box = {}
    vim.api.nvim_input(keys) -- typed into the default vim.ui.select (inputlist)
    coroutine.wrap(function()
      box.result = approval.handler(nil, { type = 2, message = 'Ink wants to run a command:\nls', actions = actions }, { client_id = 4242, method = 'window/showMessageRequest' })
    end)()
    H.wait_for(function()
      return box.result
    end, 'the approval answer')
    return box.result
  end
  H.eq(actions[1], ask('1<CR>'))
  H.eq(actions[3], ask('3<CR>'))
  H.eq(vim.NIL, ask('<Esc>'))
  H.contains(transcript.text(), 'approval asked: Ink wants to run a command: ls')
  H.contains(transcript.text(), 'you chose: Reject')
end)

-- ---- the chat buffer (no server: updates and requests are fed as the client would) -------

local chat = require('ink.chat')
local chat_render = require('ink.chat_render')
local chat_window = require('ink.chat_window')

local function up(u)
  chat.on_update({ sessionId = 's-unit', turnId = 't1', update = u })
end

--- sign and status text of the call on a 0-based row
local function chat_deco(row)
  local m = vim.api.nvim_buf_get_extmarks(chat_render.buf(), chat_render.ns, { row, 0 }, { row, -1 }, { details = true })[1]
  return { vim.trim(m[4].sign_text or ''), m[4].virt_text[1][1] }
end

local function chat_row(text)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(chat_render.buf(), 0, -1, true)) do
    if l == text then
      return i - 1
    end
  end
  error('no chat line ' .. text)
end

H.case('chat: calls fold their output, a task\'s sub-agent calls nest in its fold, refused and failed calls are told apart', function()
  vim.cmd('tabonly')
  vim.cmd('only')
  chat.reset()
  vim.cmd('Ink')
  chat.question('survey', 'a.py')
  up({ sessionUpdate = 'tool_call', toolCallId = 'c1', title = 'task: survey', kind = 'think', status = 'pending', rawInput = {} })
  up({ sessionUpdate = 'tool_call', toolCallId = 'c2', title = 'bash: make', kind = 'execute', status = 'pending', rawInput = {} })
  up({ sessionUpdate = 'tool_call_update', toolCallId = 'c1', status = 'in_progress', phase = 'running' })
  up({ sessionUpdate = 'tool_call', toolCallId = 'c1/c1', parentToolCallId = 'c1', title = 'read a.py', kind = 'read', status = 'pending', rawInput = { path = 'a.py' } })
  up({ sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = 'Look' } })
  up({ sessionUpdate = 'tool_call', toolCallId = 'c1/c2', parentToolCallId = 'c1', title = 'bash: rm x', kind = 'execute', status = 'pending', rawInput = {} })
  up({ sessionUpdate = 'tool_call_update', toolCallId = 'c1/c1', status = 'completed', phase = 'delivered', content = { { type = 'content', content = { type = 'text', text = 'A' } } } })
  up({ sessionUpdate = 'tool_call_update', toolCallId = 'c1/c2', status = 'failed', phase = 'delivered', rawOutput = { isError = true, text = 'Tool "bash" blocked by user: the user rejected this call' } })
  up({ sessionUpdate = 'tool_call_update', toolCallId = 'c1', status = 'completed', phase = 'settled', durationMs = 1500 })
  up({ sessionUpdate = 'tool_call_update', toolCallId = 'c1', status = 'completed', phase = 'delivered', content = { { type = 'content', content = { type = 'text', text = 'found it' } } } })
  up({ sessionUpdate = 'tool_call_update', toolCallId = 'c2', status = 'in_progress', phase = 'running' })
  H.eq({ '◐', 'running' }, chat_deco(chat_row('▸ bash: make')))
  up({ sessionUpdate = 'tool_call_update', toolCallId = 'c2', status = 'failed', phase = 'delivered', rawOutput = { isError = true, text = 'make: no rule' } })
  up({ sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = 'ed.' } })
  H.eq({
    '## You · a.py', '', 'survey', '', '## Ink',
    '▸ task: survey',
    '  ▸ read a.py', '  ```', '  A', '  ```',
    '  ▸ bash: rm x', '  ```', '  Tool "bash" blocked by user: the user rejected this call', '  ```',
    '```', 'found it', '```',
    '▸ bash: make', '```', 'make: no rule', '```',
    '', 'Looked.',
  }, vim.api.nvim_buf_get_lines(chat_render.buf(), 0, -1, true))
  H.eq({ '✓', 'done · 1.5 s' }, chat_deco(5))
  H.eq({ '✓', 'done' }, chat_deco(6))
  H.eq({ '⊘', 'refused' }, chat_deco(10))
  H.eq({ '✗', 'failed' }, chat_deco(17))
  local cw = chat_window.windows()
  vim.api.nvim_win_call(cw, function()
    -- the task's fold holds its sub-agent calls (each a fold of its own) and its output
    H.eq({ 6, 17 }, { vim.fn.foldclosed(6), vim.fn.foldclosedend(6) }, 'task fold')
    H.eq({ 18, 21 }, { vim.fn.foldclosed(18), vim.fn.foldclosedend(18) }, 'bash fold')
    H.eq({ 1, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 0 }, vim.tbl_map(vim.fn.foldlevel, { 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 23 }))
    vim.cmd('6foldopen')
    H.eq({ 7, 10 }, { vim.fn.foldclosed(7), vim.fn.foldclosedend(7) }, 'sub-agent call fold')
    H.contains(vim.fn.foldtextresult(7), '  ▸ read a.py  done  (3 lines)')
  end)
  -- <CR> on a call without a file or diff opens and closes its fold
  vim.api.nvim_set_current_win(cw)
  vim.api.nvim_win_set_cursor(cw, { 18, 0 })
  vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
  H.eq(-1, vim.fn.foldclosed(18), '<CR> opened the fold')
end)

H.case('chat: a command approval is answered in place; the picker and the chat close each other', function()
  chat.reset()
  local actions = {
    { title = 'Allow once', optionId = 'allow_once' },
    { title = 'Always allow', optionId = 'allow_always' },
    { title = 'Reject', optionId = 'reject_once' },
  }
  local function request(id, cmd)
    up({ sessionUpdate = 'tool_call', toolCallId = id, title = 'bash: ' .. cmd, kind = 'execute', status = 'pending', rawInput = {} })
    local box = {}
    coroutine.wrap(function()
      box.result = approval.handler(nil, { type = 2, message = 'Ink wants to run a command:\n' .. cmd, actions = actions, ink = { toolCallId = id } }, { client_id = 4242, method = 'window/showMessageRequest' })
    end)()
    return box
  end
  local cw = assert(chat_window.windows())
  -- the chat is on screen: no picker, the question waits on the call; ga in the chat allows
  local select_calls = 0
  local real_select = vim.ui.select
  vim.ui.select = function(items, o, cb) -- a picker with a float of its own, like telescope's
    select_calls = select_calls + 1
    local b = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_open_win(b, true, { relative = 'editor', row = 1, col = 1, width = 20, height = 3 })
  end
  local ok, err = pcall(function()
    local box = request('k1', 'ls')
    local row = chat_row('▸ bash: ls')
    H.eq({ '?', 'needs approval · ga allow once · gA always · gr reject · <CR> choices' }, chat_deco(row))
    H.eq(0, select_calls, 'no picker while the chat is on screen')
    vim.api.nvim_set_current_win(cw)
    vim.api.nvim_win_set_cursor(cw, { row + 1, 0 })
    vim.api.nvim_feedkeys('ga', 'x', false)
    H.wait_for(function() return box.result end, 'the answer')
    H.eq(actions[1], box.result)
    H.eq({ '◌', 'queued · allowed once' }, chat_deco(row))
    -- <CR> opens the picker; gr in the chat answers and closes the picker's window
    box = request('k2', 'rm -rf build')
    row = chat_row('▸ bash: rm -rf build')
    vim.api.nvim_set_current_win(cw)
    vim.api.nvim_win_set_cursor(cw, { row + 1, 0 })
    vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
    H.eq(1, select_calls, '<CR> opened the picker')
    local picker = vim.api.nvim_get_current_win()
    vim.api.nvim_set_current_win(cw)
    vim.api.nvim_feedkeys('gr', 'x', false)
    H.wait_for(function() return box.result end, 'the answer')
    H.eq(actions[3], box.result)
    H.eq(false, vim.api.nvim_win_is_valid(picker), 'the picker closed')
    H.eq({ '◌', 'queued · rejected' }, chat_deco(row))
  end)
  vim.ui.select = real_select
  assert(ok, err)
  -- the chat is not on screen: the real vim.ui.select asks; the chat records the answer
  chat_window.close()
  vim.api.nvim_input('2<CR>')
  local box = request('k3', 'make')
  H.wait_for(function() return box.result end, 'the answer')
  H.eq(actions[2], box.result)
  H.eq({ '◌', 'queued · always allowed' }, chat_deco(chat_row('▸ bash: make')))
  H.eq(0, #approval.pending(), 'nothing left waiting')
end)

H.case('chat: an edit review answered from the chat closes its diff; answered in the diff, the chat stops asking', function()
  vim.cmd('Ink')
  local path = tmp .. '/chat.txt'
  H.write(path, 'one\n')
  local function review_of(id)
    up({ sessionUpdate = 'tool_call', toolCallId = id, title = 'edit chat.txt', kind = 'edit', status = 'pending', rawInput = { path = path } })
    local box
    H.wait_event('InkReviewOpen', function()
      box = apply_edit({
        label = ('ink: edit chat.txt (%s)'):format(id),
        edit = { changes = { [vim.uri_from_fname(path)] = { te(0, 0, 0, 3, id) } } },
      })
    end)
    return box
  end
  local tabs = #vim.api.nvim_list_tabpages()
  local box = review_of('e1')
  H.eq(tabs + 1, #vim.api.nvim_list_tabpages(), 'the diff tab')
  local row = chat_row('▸ edit chat.txt')
  H.eq({ '?', 'needs approval · ga accept · gr reject · <CR> diff' }, chat_deco(row))
  H.eq({ '```diff', '@@ -1 +1 @@', '-one', '+e1', '```' }, vim.api.nvim_buf_get_lines(chat_render.buf(), row + 1, row + 6, true))
  vim.cmd('tabfirst')
  local cw = assert(chat_window.windows())
  vim.api.nvim_set_current_win(cw)
  vim.api.nvim_win_set_cursor(cw, { row + 1, 0 })
  vim.api.nvim_feedkeys('ga', 'x', false)
  H.wait_for(function() return box.result end, 'the applyEdit answer')
  H.eq({ applied = true }, box.result)
  H.eq('e1\n', H.read(path))
  H.eq(tabs, #vim.api.nvim_list_tabpages(), 'the diff closed')
  H.eq({ '◌', 'queued · accepted' }, chat_deco(row))
  -- answered in the diff (:InkReject there): the chat's question is gone
  box = review_of('e2')
  vim.cmd('InkReject not now')
  H.wait_for(function() return box.result end, 'the applyEdit answer')
  H.eq(false, box.result.applied)
  local rows = {}
  for i, l in ipairs(vim.api.nvim_buf_get_lines(chat_render.buf(), 0, -1, true)) do
    if l == '▸ edit chat.txt' then
      rows[#rows + 1] = i - 1
    end
  end
  H.eq({ '◌', 'queued · rejected' }, chat_deco(rows[2]))
  H.eq('e1\n', H.read(path))
end)

H.case('chat: usage and context share in the winbar; float layout; bad layouts are refused', function()
  up({ sessionUpdate = 'usage_update', inputTokens = 12345, outputTokens = 678, contextTokens = 32000, contextWindow = 128000 })
  H.eq('Ink · 12k in · 678 out · context 25%% (32k/128k)', vim.wo[chat_window.windows()].winbar)
  chat_window.close()
  vim.cmd('Ink float')
  local cw, iw = chat_window.windows()
  H.eq({ 'editor', 'editor' }, { vim.api.nvim_win_get_config(cw).relative, vim.api.nvim_win_get_config(iw).relative })
  vim.api.nvim_win_close(iw, true) -- one goes, both go
  H.wait_for(function() return not chat_window.windows() end, 'the chat float closing too')
  vim.cmd('messages clear')
  pcall(vim.cmd, 'Ink sideways')
  H.contains(vim.api.nvim_exec2('messages', { output = true }).output, 'ink: unknown chat layout "sideways"')
  local _, problems = config.merge({ chat = { layout = 'diagonal', keymaps = { accept = 'yy' } } })
  H.eq({ "chat.layout: expected 'vertical', 'horizontal' or 'float'" }, problems)
  local merged = config.merge({ chat = { layout = 'diagonal', size = 50 } })
  H.eq({ 'vertical', 50, 'ga' }, { merged.chat.layout, merged.chat.size, merged.chat.keymaps.accept })
end)

H.case('chat: reasoning is a closed Thinking fold before the call and the answer; the window source in the winbar', function()
  vim.cmd('tabonly')
  vim.cmd('only')
  chat.reset()
  vim.cmd('Ink')
  chat.question('what do the notes say?')
  up({ sessionUpdate = 'thinking', content = { type = 'text', text = 'Read the notes\n' } })
  up({ sessionUpdate = 'thinking', content = { type = 'text', text = 'first.' } })
  up({ sessionUpdate = 'tool_call', toolCallId = 'r1', title = 'read notes.txt', kind = 'read', status = 'pending', rawInput = { path = 'notes.txt' } })
  up({ sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = 'Ship on Friday.' } })
  H.eq({
    '## You', '', 'what do the notes say?', '', '## Ink',
    '▸ Thinking', '  Read the notes', '  first.',
    '▸ read notes.txt',
    '', 'Ship on Friday.',
  }, vim.api.nvim_buf_get_lines(chat_render.buf(), 0, -1, true))
  H.eq({ '…', 'thought' }, chat_deco(5))
  vim.api.nvim_win_call(chat_window.windows(), function()
    H.eq({ 6, 8 }, { vim.fn.foldclosed(6), vim.fn.foldclosedend(6) }, 'thinking fold')
  end)
  H.eq('r1', chat.call_for_approval('bash: ls').id, 'a Thinking block never waits for an approval')
  up({ sessionUpdate = 'usage_update', inputTokens = 3000, outputTokens = 20, contextTokens = 3020, contextWindow = 4096, contextWindowSource = 'Ollama runtime' })
  H.eq('Ink · 3.0k in · 20 out · context 74%% (3.0k/4.1k, Ollama runtime)', vim.wo[chat_window.windows()].winbar)
  up({ sessionUpdate = 'warning', message = 'the prompt is larger than the window' })
  H.contains(table.concat(vim.api.nvim_buf_get_lines(chat_render.buf(), 0, -1, true), '\n'), 'warning: the prompt is larger than the window')
end)

H.case(':help ink has valid tags for every command', function()
  -- helptags on a copy, so the test never writes a tags file into the repository
  local repo = assert(os.getenv('INK_TEST_REPO'))
  local copy = vim.fn.tempname()
  vim.fn.mkdir(copy .. '/doc', 'p')
  H.write(copy .. '/doc/ink.txt', assert(H.read(repo .. '/editors/nvim/doc/ink.txt')))
  vim.cmd('helptags ' .. vim.fn.fnameescape(copy .. '/doc')) -- errors on duplicate tags
  vim.opt.runtimepath:append(copy)
  for _, tag in ipairs({ 'ink', 'ink-setup', 'ink-review', ':InkAsk', ':InkCancel', ':InkLog', ':InkNewSession', ':InkAccept', ':InkReject', ':Ink', ':InkSessions', 'ink-chat', 'ink-chat-keys' }) do
    vim.cmd('help ' .. tag)
    H.eq('ink.txt', vim.fn.expand('%:t'), ':help ' .. tag)
    vim.cmd('helpclose')
  end
  for _, cmd in ipairs({ 'InkAsk', 'InkCancel', 'InkLog', 'InkNewSession', 'InkAccept', 'InkReject', 'Ink', 'InkSessions' }) do
    H.eq(2, vim.fn.exists(':' .. cmd), 'command ' .. cmd)
  end
end)

H.case(':InkLog shows the transcript in a split', function()
  vim.cmd('only')
  vim.cmd('InkLog')
  H.eq(1, #vim.fn.win_findbuf(transcript.buf()), 'windows showing the transcript')
  H.eq(2, #vim.api.nvim_tabpage_list_wins(0))
  vim.cmd('InkLog') -- already shown: no second window
  H.eq(2, #vim.api.nvim_tabpage_list_wins(0))
end)

H.case('checkhealth ink without a running server: version from the command, endpoint down', function()
  local repo = assert(os.getenv('INK_TEST_REPO'))
  require('ink').setup({
    cmd = { repo .. '/.venv/bin/python', '-m', 'ink_ls', '--stdio' },
    model = { baseUrl = 'http://127.0.0.1:9/v1' }, -- discard port: nothing listens
  })
  vim.cmd('checkhealth ink')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, true), '\n')
  vim.cmd('bwipeout')
  H.contains(text, 'OK version: ink-ls 0.1.0')
  H.contains(text, 'ERROR model endpoint http://127.0.0.1:9/v1 is not reachable')
  H.contains(text, 'approval mode: ask')
end)

H.case(':InkAsk with a missing server command says so and sends nothing', function()
  require('ink').setup({ cmd = { '/nonexistent/ink-ls', '--stdio' } })
  vim.cmd('messages clear')
  -- an error message inside a command is raised to the caller (as a user would see it)
  local _, err = pcall(vim.cmd, 'InkAsk hello')
  local messages = tostring(err) .. vim.api.nvim_exec2('messages', { output = true }).output
  H.contains(messages, 'ink: ink-ls not found: "/nonexistent/ink-ls" is not executable (set cmd in setup())')
  H.eq(0, #vim.lsp.get_clients({ name = 'ink' }), 'clients')
  H.eq(nil, require('ink.session').turn, 'running turn')
end)

H.case('status shows the context in use against the window, compaction while it runs', function()
  local session = require('ink.session')
  local usage = require('ink.usage')
  usage.reset()
  H.eq('', session.status(), 'nothing known yet')
  session.on_update(nil, { sessionId = 's', turnId = 't1', update = {
    sessionUpdate = 'usage_update', inputTokens = 3000, outputTokens = 120, cacheReadTokens = 2048,
    contextTokens = 3120, contextWindow = 8192, sessionInputTokens = 9000, sessionOutputTokens = 400,
  } }, { client_id = 1 })
  H.eq('Ink 3.1k/8.2k (38%)', session.status())
  H.eq(9000, require('ink').usage().sessionInputTokens)
  session.on_update(nil, { sessionId = 's', turnId = 't2', update = {
    sessionUpdate = 'compaction', phase = 'start', reason = 'threshold', tokensBefore = 7000, contextWindow = 8192,
  } }, { client_id = 1 })
  H.eq('Ink compacting…', session.status())
  session.on_update(nil, { sessionId = 's', turnId = 't2', update = {
    sessionUpdate = 'compaction', phase = 'end', reason = 'threshold', tokensBefore = 7000, tokensAfter = 2100,
  } }, { client_id = 1 })
  H.eq('Ink 2.1k/8.2k (26%)', session.status())
  H.contains(transcript.text(), 'compacted the conversation: 7000 → 2100 tokens')
  H.eq('131k', usage.short(131072))
  usage.reset()
end)

H.run()

-- End-to-end cases of the chat buffer (:Ink): typed into the input area, answered in place,
-- resumed through :InkSessions, against the real ink-ls server and a scripted model (pytest
-- picks replies by the "[case:…]" tag). Keys are typed as a user types them.
local H = require('harness')
local chat_render = require('ink.chat_render')
local chat_window = require('ink.chat_window')
local session = require('ink.session')

local ws = assert(os.getenv('INK_TEST_WORKSPACE'))
local dump_path = assert(os.getenv('INK_TEST_DUMP'))
vim.cmd.cd(ws)
vim.o.columns, vim.o.lines = 160, 50

local chat_buf = chat_render.buf()

local function lines()
  return vim.api.nvim_buf_get_lines(chat_buf, 0, -1, true)
end

--- The 0-based row of the first chat line equal to `text`.
local function row_of(text)
  for i, l in ipairs(lines()) do
    if l == text then
      return i - 1
    end
  end
  error(('no line %q in the chat:\n%s'):format(text, table.concat(lines(), '\n')))
end

--- The chat's extmark details on a row (sign, status text).
local function deco(row)
  local marks = vim.api.nvim_buf_get_extmarks(chat_buf, chat_render.ns, { row, 0 }, { row, -1 }, { details = true })
  H.eq(1, #marks, 'extmarks on row ' .. row)
  local d = marks[1][4]
  return { sign = vim.trim(d.sign_text or ''), text = d.virt_text and d.virt_text[1][1] or '' }
end

--- Puts the cursor of the chat window on a row and types keys there.
local function type_in_chat(row, keys)
  local win = assert(chat_window.windows(), 'the chat window')
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_cursor(win, { row + 1, 0 })
  vim.api.nvim_feedkeys(vim.keycode(keys), 'x', false)
end

--- Types a prompt into the input area and sends it with <C-s> from insert mode (or, with
--- `normal`, <CR> in normal mode); `during` runs while the turn goes on. Returns the result.
local function send(prompt, during, normal)
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
  vim.api.nvim_feedkeys(vim.keycode('i' .. prompt .. (normal and '<Esc><CR>' or '<C-s>')), 'x', false)
  if during then
    local ok, err = pcall(during)
    if not ok then
      require('ink').cancel()
      pcall(H.wait_for, function()
        return done
      end, 'the cancelled turn')
      error(err, 0)
    end
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

H.case(':Ink opens the chat and its input area; g? lists the keys', function()
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/README.md'))
  vim.cmd('Ink')
  local cw, iw = chat_window.windows()
  assert(cw and iw, 'chat and input windows')
  H.eq(chat_buf, vim.api.nvim_win_get_buf(cw))
  H.eq(iw, vim.api.nvim_get_current_win(), 'the input area has the focus')
  H.eq('markdown', vim.bo[chat_buf].filetype)
  H.eq('expr', vim.wo[cw].foldmethod)
  H.eq('yes:1', vim.wo[cw].signcolumn)
  if not vim.treesitter.highlighter.active[chat_buf] then
    error('treesitter markdown highlighting is not active in the chat')
  end
  vim.api.nvim_set_current_win(cw)
  vim.api.nvim_feedkeys('g?', 'x', false)
  local help = vim.api.nvim_get_current_win()
  H.eq('editor', vim.api.nvim_win_get_config(help).relative, 'g? opens a float')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, true), '\n')
  for _, want in ipairs({ 'ga       accept', 'gr       reject', '<CR>     open', '<C-c>    stop', '<C-s>    send the prompt (insert too)' }) do
    H.contains(text, want, 'g? help')
  end
  vim.api.nvim_feedkeys('q', 'x', false)
  H.eq(false, vim.api.nvim_win_is_valid(help), 'q closes the help')
end)

local tab1
local first_session

H.case('a turn in the chat: read, command and edit answered in place, markdown answer', function()
  tab1 = vim.api.nvim_get_current_tabpage()
  local asked, reviewed, closed, approved
  local result = send('[case:chat] tour the project', function()
    -- the command: asked in the chat (no picker while the chat is on screen), allowed with ga
    asked = H.wait_event('InkApprovalRequest', nil, nil, 20000)
    H.eq(true, asked.in_chat, 'asked in the chat')
    local bash = row_of('▸ bash: echo chat > ran.txt')
    local d = deco(bash)
    H.eq('?', d.sign, 'sign of the waiting command')
    H.contains(d.text, 'needs approval · ga allow once · gA always · gr reject')
    approved = H.wait_event('InkApprovalDone', function()
      type_in_chat(bash, 'ga')
    end)
    -- the edit: its diff review opens in a tab; accepted from the chat, the diff closes
    reviewed = H.wait_event('InkReviewOpen', nil, nil, 20000)
    H.eq(2, #vim.api.nvim_list_tabpages(), 'the review tab')
    local edit = row_of('▸ edit app.py')
    H.contains(deco(edit).text, 'needs approval · ga accept · gr reject · <CR> diff')
    H.contains(table.concat(lines(), '\n'), '▸ edit app.py\n```diff\n@@ -1,3 +1,3 @@\n def main():\n-    x = 1\n+    x = 2\n')
    vim.api.nvim_set_current_tabpage(tab1)
    closed = H.wait_event('InkReviewClose', function()
      type_in_chat(edit, 'ga')
    end)
  end)
  H.eq('end_turn', result.stopReason)
  first_session = result.sessionId
  H.eq('allow_once', approved.choice.optionId)
  H.eq(reviewed.toolCallId, closed.toolCallId)
  H.eq({ true, true }, { closed.accepted, closed.applied }, 'accepted and applied')
  H.eq(1, #vim.api.nvim_list_tabpages(), 'the diff tab closed')
  H.eq('chat\n', H.read(ws .. '/ran.txt'))
  H.eq('def main():\n    x = 2\n    return x\n', H.read(ws .. '/app.py'))
  H.eq({ '' }, vim.api.nvim_buf_get_lines(chat_window.input_buf(), 0, -1, true), 'input cleared')

  -- what the chat shows: the conversation as markdown, one line per call with its output
  H.eq({
    '## You · README.md',
    '',
    '[case:chat] tour the project',
    '',
    '## Ink',
    '▸ read README.md',
    '```',
    '# Demo',
    '',
    'Start the project with `make start`.',
    '```',
    '▸ bash: echo chat > ran.txt',
    '```',
    '(no output)',
    '```',
    '▸ edit app.py',
    '```diff',
    '@@ -1,3 +1,3 @@',
    ' def main():',
    '-    x = 1',
    '+    x = 2',
    '     return x',
    '```',
    '',
    'Done. Run it with:',
    '',
    '```python',
    'from app import main',
    'print(main())',
    '```',
    '',
    'It prints `2`.',
    '',
    '> done · 40 tokens in, 20 out',
  }, lines(), 'chat lines')

  local read, bash, edit = row_of('▸ read README.md'), row_of('▸ bash: echo chat > ran.txt'), row_of('▸ edit app.py')
  H.eq('✓', deco(read).sign)
  H.contains(deco(read).text, 'done · ')
  H.eq('✓', deco(bash).sign)
  H.contains(deco(bash).text, 'allowed once')
  H.eq('✓', deco(edit).sign)
  H.contains(deco(edit).text, 'accepted')

  -- each call's output is a closed fold under its line
  local cw = chat_window.windows()
  vim.api.nvim_win_call(cw, function()
    for _, r in ipairs({ { read, 5 }, { bash, 3 }, { edit, 7 } }) do
      local lnum = r[1] + 1
      H.eq(lnum, vim.fn.foldclosed(lnum), 'fold starts at the call line ' .. lnum)
      H.eq(lnum + r[2], vim.fn.foldclosedend(lnum), 'fold end of line ' .. lnum)
    end
    H.eq(-1, vim.fn.foldclosed(row_of('Done. Run it with:') + 1), 'the answer is not folded')
    H.contains(vim.fn.foldtextresult(read + 1), '▸ read README.md')
  end)
  H.contains(vim.wo[cw].winbar, '40 in · 20 out')
end)

H.case('<CR> on a call opens its file, or its diff', function()
  local read = row_of('▸ read README.md')
  type_in_chat(read, '<CR>')
  H.eq(vim.fs.normalize(ws .. '/README.md'), vim.fs.normalize(vim.api.nvim_buf_get_name(0)), 'file opened')
  local cw = chat_window.windows()
  H.eq(true, vim.api.nvim_get_current_win() ~= cw, 'opened outside the chat')
  type_in_chat(row_of('▸ edit app.py'), '<CR>')
  H.eq(2, #vim.api.nvim_list_tabpages(), 'a diff tab')
  local wins = vim.api.nvim_tabpage_list_wins(0)
  H.eq({ true, true }, { vim.wo[wins[1]].diff, vim.wo[wins[2]].diff }, 'diff mode')
  H.eq({ 'def main():', '    x = 1', '    return x' }, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[1]), 0, -1, true))
  H.eq({ 'def main():', '    x = 2', '    return x' }, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[2]), 0, -1, true))
  vim.api.nvim_feedkeys('q', 'x', false)
  H.eq(1, #vim.api.nvim_list_tabpages(), 'q closes the diff tab')
end)

--- Attaches a real UI (`nvim --remote-ui` in a detached tmux session) to this headless
--- Neovim and saves what it shows: `path` as plain text, `path`.ansi with colours.
---@param path string
local function capture_screen(path)
  local sock = vim.fn.tempname()
  local addr = vim.fn.serverstart(vim.fn.tempname())
  local function tmux(args)
    return vim.system(vim.list_extend({ 'tmux', '-S', sock }, args)):wait()
  end
  tmux({ 'new-session', '-d', '-x', '150', '-y', '30', vim.v.progpath, '--remote-ui', '--server', addr })
  local ok, err = pcall(function()
    H.wait_for(function()
      return #vim.api.nvim_list_uis() > 0
    end, 'the UI in tmux')
    vim.cmd('silent! tabonly')
    local cw = assert(chat_window.windows())
    vim.api.nvim_win_set_width(cw, 72)
    vim.api.nvim_win_call(cw, function()
      vim.fn.winrestview({ topline = 1, lnum = 1 })
    end)
    vim.cmd('echo "" | redraw!')
    H.wait_for(function()
      return (tmux({ 'capture-pane', '-p' }).stdout or ''):find('▸ edit app.py', 1, true)
    end, 'the chat on the tmux screen')
    H.write(path, tmux({ 'capture-pane', '-p' }).stdout)
    H.write(path .. '.ansi', tmux({ 'capture-pane', '-p', '-e' }).stdout)
  end)
  tmux({ 'kill-server' })
  vim.fn.serverstop(addr)
  assert(ok, err)
end

H.case('dump of the chat buffer', function()
  local out = { '# :Ink chat buffer, folds closed (as shown)', '' }
  vim.list_extend(out, require('ink.chat_folds').dump(true))
  vim.list_extend(out, { '', '# the same with every fold open', '' })
  vim.list_extend(out, require('ink.chat_folds').dump(false))
  out[#out + 1] = ''
  out[#out + 1] = 'winbar: ' .. vim.wo[chat_window.windows()].winbar:gsub('%%%%', '%%')
  H.write(dump_path, table.concat(out, '\n') .. '\n')
  H.contains(table.concat(out, '\n'), '✓ ▸ bash: echo chat > ran.txt  ‹')
  local screen = os.getenv('INK_TEST_SCREEN')
  if screen then -- docs only (INK_UPDATE_DOCS=1): the real screen, through a UI in tmux
    capture_screen(screen)
  end
end)

H.case(':InkSessions resumes a past session in the chat; the next prompt continues it', function()
  vim.cmd('InkNewSession')
  H.eq({ '' }, lines(), 'a new session starts an empty chat')
  local pick = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkSessionsPick',
    once = true,
    callback = function(ev)
      for i, s in ipairs(ev.data.sessions) do
        if s.sessionId == first_session then
          vim.api.nvim_input(i .. '<CR>') -- typed into the real vim.ui.select (inputlist)
        end
      end
    end,
  })
  local loaded = H.wait_event('InkSessionLoaded', function()
    vim.cmd('InkSessions')
  end, nil, 20000)
  pcall(vim.api.nvim_del_autocmd, pick)
  assert(not loaded.err, vim.inspect(loaded.err))
  H.eq(first_session, loaded.result.sessionId)
  H.eq(first_session, session.session_id, 'the session the next prompt continues')
  local text = table.concat(lines(), '\n')
  H.contains(text, '## You · README.md\n\n[case:chat] tour the project\n\n## Ink\n▸ read README.md\n```\n# Demo\n\nStart the project')
  H.contains(text, '▸ bash: echo chat > ran.txt\n```\n(no output)\n```\n▸ edit app.py\n```\nEdited app.py: 1 edit applied.\n```')
  H.contains(text, '```python\nfrom app import main\nprint(main())\n```\n\nIt prints `2`.')
  H.contains(text, '> resumed · ')
  H.eq('✓', deco(row_of('▸ edit app.py')).sign)
  H.contains(vim.wo[chat_window.windows()].winbar, 'Ink · [case:chat] tour the project · 40 in · 20 out')
  local result = send('[case:chat-more] and now?', nil, true)
  H.eq(first_session, result.sessionId, 'continued the resumed session')
  H.contains(table.concat(lines(), '\n'), '## You · README.md\n\n[case:chat-more] and now?\n\n## Ink\n\nStill two.')
end)

H.case('the stop key in the chat ends a running turn', function()
  vim.cmd('InkNewSession')
  local chunks = 0
  local id = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkUpdate',
    callback = function(ev)
      if ev.data.update.sessionUpdate == 'agent_message_chunk' then
        chunks = chunks + 1
      end
    end,
  })
  local result = send('[case:chat-stop] think for long', function()
    H.wait_for(function()
      return chunks > 0
    end, 'the first words of the answer')
    H.contains(vim.wo[chat_window.windows()].winbar, 'running · <C-c> stops')
    type_in_chat(0, '<C-c>')
  end)
  vim.api.nvim_del_autocmd(id)
  H.eq('cancelled', result.stopReason)
  H.contains(table.concat(lines(), '\n'), '> stopped: cancelled')
end)

H.run()

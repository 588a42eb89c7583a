-- :Ink rewind against the real ink-ls server and a scripted model (pytest picks the replies
-- by the "[case:…]" tag): the picked turn's files come back, the open buffer follows, the
-- quickfix list holds the changed hunks, and an unsaved buffer edit is asked about, not lost.
local H = require('harness')
local ink = require('ink')

local ws = assert(os.getenv('INK_TEST_WORKSPACE'))
vim.cmd.cd(ws)
ink.setup(vim.tbl_extend('force', require('ink.config').options, { approval = 'auto' }))

local A1, A2 = "print('one')", "print('two')"

local function ask(prompt)
  local done
  ink.ask(prompt, {
    on_done = function(err, result)
      done = { err = err, result = result }
    end,
  })
  H.wait_for(function()
    return done
  end, 'the end of the turn for ' .. prompt, 30000)
  if done.err then
    error('prompt failed: ' .. vim.inspect(done.err))
  end
  return done.result
end

--- Runs :Ink rewind, picking entry `n` in the real vim.ui.select (typed keys); returns the
--- rewind's result. `during` runs when the server asks about a conflict (data of the event).
local function rewind_to(n, on_conflict)
  local pick = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkRewindPick',
    once = true,
    callback = function()
      vim.api.nvim_input(n .. '<CR>')
    end,
  })
  local conflict = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkApprovalRequest',
    callback = function(ev)
      if on_conflict then
        on_conflict(ev.data)
      end
    end,
  })
  local data = H.wait_event('InkRewound', function()
    vim.cmd('Ink rewind')
  end, nil, 30000)
  pcall(vim.api.nvim_del_autocmd, pick)
  vim.api.nvim_del_autocmd(conflict)
  return data
end

H.case('rewind: files come back, the open buffer follows, the quickfix lists the hunks', function()
  H.write(ws .. '/c.txt', 'keep me\n')
  H.write(ws .. '/run.sh', 'echo run\n')
  vim.uv.fs_chmod(ws .. '/run.sh', tonumber('644', 8))
  ask('[case:rw1] create a.py')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/a.py'))
  local b = vim.api.nvim_get_current_buf()
  ask('[case:rw2] edit a.py and tidy')
  H.eq({ A2 }, vim.api.nvim_buf_get_lines(b, 0, -1, true), 'buffer after turn 2')
  local rw = rewind_to(2)
  H.eq(3, rw.checkpoint.turn, 'the rewind entry')
  H.eq({ A1 }, vim.api.nvim_buf_get_lines(b, 0, -1, true), 'buffer after the rewind')
  H.eq(A1 .. '\n', H.read(ws .. '/a.py'), 'a.py on disk')
  H.eq(nil, vim.uv.fs_stat(ws .. '/b.txt'), 'b.txt')
  H.eq('keep me\n', H.read(ws .. '/c.txt'), 'c.txt')
  H.eq(tonumber('644', 8), bit.band(vim.uv.fs_stat(ws .. '/run.sh').mode, tonumber('777', 8)), 'mode')
  local qf = vim.fn.getqflist({ items = 0, title = 0 })
  H.eq('Ink rewind to before 2', qf.title)
  local names = {}
  for _, item in ipairs(qf.items) do
    names[#names + 1] = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(item.bufnr), ':t') .. ':' .. item.text
  end
  table.sort(names)
  H.eq({ 'a.py:modified: -1 +1 lines', 'b.txt:deleted by the rewind', 'c.txt:added: -0 +1 lines', 'run.sh:modified (mode)' }, names)
end)

H.case('review: the session\'s changed hunks in the quickfix list', function()
  vim.api.nvim_create_autocmd('User', {
    pattern = 'InkReviewPick',
    once = true,
    callback = function()
      vim.api.nvim_input('1<CR>') -- "Whole session"
    end,
  })
  local data = H.wait_event('InkReviewed', function()
    vim.cmd('Ink review')
  end, nil, 30000)
  local texts = {}
  for _, item in ipairs(data.items) do
    texts[#texts + 1] = vim.fn.fnamemodify(item.filename, ':t') .. ':' .. item.text
  end
  -- after the rewind to before turn 2, only turn 1's a.py is in effect
  H.eq({ 'a.py:added: -0 +1 lines' }, texts)
  H.eq('Ink session changes', vim.fn.getqflist({ title = 0 }).title)
end)

H.case('rewind: an unsaved buffer edit is a conflict the user is asked about', function()
  local undo = rewind_to(3) -- rewinding to the rewind brings turn 2 back
  H.eq(4, undo.checkpoint.turn)
  local b = vim.fn.bufnr(ws .. '/a.py')
  H.eq({ A2 }, vim.api.nvim_buf_get_lines(b, 0, -1, true), 'buffer after the undo')
  vim.api.nvim_buf_set_lines(b, 0, -1, true, { "print('mine, unsaved')" })
  local asked
  local rw = rewind_to(2, function(data)
    asked = data.message
    vim.api.nvim_input('2<CR>') -- "Keep mine", typed into the real vim.ui.select
  end)
  H.contains(asked or '', 'a.py', 'the conflict question')
  H.eq({ 'a.py' }, rw.kept)
  H.eq({ "print('mine, unsaved')" }, vim.api.nvim_buf_get_lines(b, 0, -1, true), 'the unsaved text')
  H.eq(A2 .. '\n', H.read(ws .. '/a.py'), 'a.py on disk')
  H.eq(nil, vim.uv.fs_stat(ws .. '/b.txt'), 'b.txt')
end)

H.run()

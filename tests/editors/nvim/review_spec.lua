-- Review against the real ink-ls server and a scripted model (pytest picks the replies by the
-- "[case:…]" tag): an edited proposal lands as the user's version, and the :Ink review
-- quickfix list reverts one hunk (`x`) or a whole file (`X`) on disk and in the buffer.
local H = require('harness')
local ink = require('ink')
local review = require('ink.review')

local ws = assert(os.getenv('INK_TEST_WORKSPACE'))
vim.cmd.cd(ws)
ink.setup(vim.tbl_extend('force', require('ink.config').options, { approval = 'ask' }))

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

local function lines(path)
  return vim.api.nvim_buf_get_lines(vim.fn.bufnr(path), 0, -1, true)
end

H.case('edited proposal: the user edits the proposed side, their version is written', function()
  H.write(ws .. '/app.py', 'x = 1\n')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/app.py'))
  local closed
  local opened = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkReviewOpen',
    once = true,
    callback = function()
      vim.schedule(function()
        local file = review.active().files[1]
        -- typed into the proposed buffer, as a user would, then accepted with the key
        vim.api.nvim_set_current_win(vim.fn.bufwinid(file.right))
        vim.api.nvim_buf_set_lines(file.right, 0, -1, true, { 'x = 20  # mine' })
        vim.cmd('normal ga')
      end)
    end,
  })
  local on_close = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkReviewClose',
    once = true,
    callback = function(ev)
      closed = ev.data
    end,
  })
  ask('[case:ep] make x two')
  pcall(vim.api.nvim_del_autocmd, opened)
  pcall(vim.api.nvim_del_autocmd, on_close)
  H.eq(true, closed and closed.edited, 'the review closed as edited')
  H.eq('x = 20  # mine\n', H.read(ws .. '/app.py'), 'app.py on disk')
  H.eq({ 'x = 20  # mine' }, lines(ws .. '/app.py'), 'the buffer')
end)

H.case('review: x reverts the hunk under the cursor, X a whole file, on disk and in the buffer', function()
  local orig = { 'l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', 'l8', 'l9' }
  H.write(ws .. '/h.txt', table.concat(orig, '\n') .. '\n')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/h.txt'))
  local accept = vim.api.nvim_create_autocmd('User', {
    pattern = 'InkReviewOpen',
    callback = function()
      vim.schedule(review.accept)
    end,
  })
  ask('[case:hk] change h.txt and add new.txt')
  vim.api.nvim_del_autocmd(accept)
  H.eq('L2', lines(ws .. '/h.txt')[2], 'turn applied')
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
  local function texts()
    local out = {}
    for _, item in ipairs(vim.fn.getqflist()) do
      out[#out + 1] = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(item.bufnr), ':t') .. ':' .. item.lnum
    end
    return out
  end
  H.eq(4, #data.items, 'hunks listed')
  H.eq({ 'app.py:1', 'h.txt:2', 'h.txt:8', 'new.txt:1' }, texts())
  H.eq('qf', vim.bo.filetype, 'the quickfix window has the focus')
  vim.api.nvim_win_set_cursor(0, { 3, 0 }) -- the hunk at h.txt:8
  vim.cmd('normal x')
  local want = vim.deepcopy(orig)
  want[2] = 'L2'
  H.eq(table.concat(want, '\n') .. '\n', H.read(ws .. '/h.txt'), 'h.txt on disk: the hunk at 8 reverted')
  H.eq(want, lines(ws .. '/h.txt'), 'the h.txt buffer follows')
  H.eq({ 'app.py:1', 'h.txt:2', 'new.txt:1' }, texts(), 'the list after the hunk revert')
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  vim.cmd('normal X') -- new.txt was created by the turn: reverting it deletes it
  H.eq(nil, vim.uv.fs_stat(ws .. '/new.txt'), 'new.txt deleted')
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.cmd('normal X')
  H.eq(table.concat(orig, '\n') .. '\n', H.read(ws .. '/h.txt'), 'h.txt on disk: the whole file reverted')
  H.eq(orig, lines(ws .. '/h.txt'), 'the h.txt buffer')
  H.eq({ 'app.py:1' }, texts(), 'the list at the end')
end)

H.run()

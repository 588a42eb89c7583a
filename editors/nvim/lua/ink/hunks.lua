--- Reverting what the agent changed, from the `:Ink review` quickfix list: the hunk of the
--- entry under the cursor, or its whole file, back to the text before the reviewed change; in
--- the buffer (one undo step) and on disk. `gd` shows the file against that text in a diff.
local edit = require('ink.edit')
local files = require('ink.files')

local M = {}

---@type { revert_hunk: string|false, revert_file: string|false, diff: string|false }
M.keymaps = { revert_hunk = 'x', revert_file = 'X', diff = 'gd' }

--- The reviewed files by absolute path: their text before the change (nil: created by it).
---@type table<string, { before: string?, status: string }>
local reviewed = {}

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

--- The changed hunks between two texts: {start_old, count_old, start_new, count_new}.
---@return integer[][]
function M.diff(before, now)
  return (vim.text and vim.text.diff or vim.diff)(before, now, { result_type = 'indices' }) --[[@as integer[][] ]]
end

--- The hunk covering (or nearest to) line `lnum` of the new text.
---@param hunks integer[][]
---@param lnum integer
---@return integer[]?
function M.hunk_at(hunks, lnum)
  local best, distance
  for _, h in ipairs(hunks) do
    local first, last = math.max(h[3], 1), math.max(h[3] + h[4] - 1, h[3], 1)
    local d = (lnum < first and first - lnum) or (lnum > last and lnum - last) or 0
    if not distance or d < distance then
      best, distance = h, d
    end
  end
  return best
end

--- `now` with hunk `h` put back as it was in `before`.
---@return string
function M.revert_hunk_text(before, now, h)
  local old = edit.to_lines(before)
  local new, eol = edit.to_lines(now)
  local back = vim.list_slice(old, h[1] + (h[2] == 0 and 1 or 0), h[1] + h[2] - 1 + (h[2] == 0 and 1 or 0))
  if h[2] == 0 then
    back = {}
  end
  local first = h[4] == 0 and h[3] + 1 or h[3] -- a pure deletion: insert after line h[3]
  local out = vim.list_slice(new, 1, first - 1)
  vim.list_extend(out, back)
  vim.list_extend(out, vim.list_slice(new, first + h[4]))
  if now == '' then
    eol = before:sub(-1) == '\n'
  end
  return edit.from_lines(out, eol)
end

--- Sets a file's text in its buffer (loaded if needed; one undo step) and writes it.
---@param path string
---@param text string
local function put(path, text)
  local b = files.loaded_buf(path)
  if not b then
    b = vim.fn.bufadd(path)
    vim.fn.bufload(b)
  end
  local lines, eol = edit.to_lines(text)
  vim.api.nvim_buf_set_lines(b, 0, -1, true, lines)
  vim.bo[b].eol = eol
  if not eol then
    vim.bo[b].fixeol = false
  end
  vim.api.nvim_buf_call(b, function()
    vim.cmd('silent noautocmd keepalt write!')
  end)
end

--- The text of a reviewed file now (buffer when loaded, else disk; nil: it does not exist).
local function now_text(path)
  if files.loaded_buf(path) or vim.uv.fs_stat(path) then
    return (files.current_text(path))
  end
end

--- Reverts the hunk of the file `path` around line `lnum` (the whole file when it was created
--- or deleted). Returns what it did, or nil and why not.
---@return string? done, string? err
function M.revert_hunk(path, lnum)
  local r = reviewed[path]
  if not r then
    return nil, 'not a file of the review'
  end
  local now = now_text(path)
  if r.before == nil or now == nil then
    return M.revert_file(path)
  end
  local h = M.hunk_at(M.diff(r.before, now), lnum)
  if not h then
    return nil, files.relpath(path) .. ' has no change left to revert'
  end
  put(path, M.revert_hunk_text(r.before, now, h))
  return ('reverted the hunk at line %d of %s'):format(math.max(h[3], 1), files.relpath(path))
end

--- Puts the whole file back as it was before the reviewed change (a created file is deleted).
---@return string? done, string? err
function M.revert_file(path)
  local r = reviewed[path]
  if not r then
    return nil, 'not a file of the review'
  end
  if r.before == nil then
    local b = files.loaded_buf(path)
    if b then
      vim.api.nvim_buf_delete(b, { force = true })
    end
    os.remove(path)
    return 'deleted ' .. files.relpath(path) .. ' (created by the change)'
  end
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  put(path, r.before)
  return 'reverted ' .. files.relpath(path)
end

--- The quickfix items of the reviewed files as they are now: one per remaining hunk.
---@return table[]
function M.items()
  local items = {}
  local paths = vim.tbl_keys(reviewed)
  table.sort(paths)
  for _, path in ipairs(paths) do
    local r, now = reviewed[path], now_text(path)
    if now == nil then
      if r.before ~= nil then
        items[#items + 1] = { filename = path, lnum = 1, text = 'deleted' }
      end
    else
      for _, h in ipairs(M.diff(r.before or '', now)) do
        items[#items + 1] = { filename = path, lnum = math.max(h[3], 1), text = ('%s: -%d +%d lines'):format(r.status, h[2], h[4]) }
      end
    end
  end
  return items
end

--- The entry under the cursor of the quickfix window: its file and line.
local function entry()
  local item = vim.fn.getqflist()[vim.fn.line('.')]
  if item and item.bufnr > 0 then
    return vim.fs.normalize(vim.api.nvim_buf_get_name(item.bufnr)), item.lnum
  end
end

--- Runs a revert on the entry under the cursor and refreshes the list in place.
local function on_entry(revert)
  local path, lnum = entry()
  if not path then
    return
  end
  local done, err = revert(path, lnum)
  local row = vim.fn.line('.')
  vim.fn.setqflist({}, 'r', { items = M.items() })
  pcall(vim.api.nvim_win_set_cursor, 0, { math.min(row, math.max(vim.fn.line('$'), 1)), 0 })
  vim.notify('ink: ' .. (done or err), done and vim.log.levels.INFO or vim.log.levels.WARN)
  fire('InkHunkReverted', { path = path, done = done, err = err })
end

--- A tab with the file (editable: `do` takes a hunk back too) against its text before.
function M.show_diff(path)
  local r = reviewed[path]
  if not r then
    return
  end
  vim.cmd('tabedit ' .. vim.fn.fnameescape(path))
  vim.cmd('diffthis')
  vim.cmd('leftabove vnew')
  local b = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(b, 0, -1, true, (edit.to_lines(r.before or '')))
  vim.bo[b].buftype, vim.bo[b].bufhidden, vim.bo[b].modifiable = 'nofile', 'wipe', false
  vim.api.nvim_buf_set_name(b, 'ink://before/' .. files.relpath(path))
  vim.cmd('diffthis')
  vim.cmd('wincmd l')
end

--- Remembers the reviewed files (`ink/session/changes` files under `root`), fills the
--- quickfix list with their hunks, opens it and maps the keys there.
---@param root string
---@param changed table[]
---@param title string
---@return table[] items
function M.open(root, changed, title)
  reviewed = {}
  for _, f in ipairs(changed) do
    if not f.binary then
      local before = f.before ~= vim.NIL and f.before or nil
      reviewed[vim.fs.normalize(root .. '/' .. f.path)] = { before = before, status = f.status }
    end
  end
  local items = M.items()
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  vim.cmd('botright copen')
  local qf = vim.api.nvim_get_current_buf()
  local function map(lhs, fn, desc)
    if lhs then
      vim.keymap.set('n', lhs, fn, { buffer = qf, nowait = true, desc = desc })
    end
  end
  map(M.keymaps.revert_hunk, function()
    on_entry(M.revert_hunk)
  end, 'Ink: revert this hunk')
  map(M.keymaps.revert_file, function()
    on_entry(M.revert_file)
  end, 'Ink: revert this file')
  map(M.keymaps.diff, function()
    local path = entry()
    if path then
      M.show_diff(path)
    end
  end, 'Ink: diff this file against before')
  return items
end

return M

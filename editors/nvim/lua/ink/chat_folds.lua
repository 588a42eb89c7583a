--- Folds of the chat buffer: every call's output (and a task's sub-agent calls) folds under
--- the call's line ('foldexpr', 'foldtext'), and a text rendering of the buffer as a window
--- shows it (signs, status, closed folds) for docs and tests. Reads chat_render's state only.
local render = require('ink.chat_render')

local M = {}
local S = render.state

--- Fold levels of every row, recomputed after the calls changed (M.refresh).
---@return table<integer, string>
local function fold_levels()
  if S.folds then
    return S.folds
  end
  local levels = {}
  local function walk(ids)
    for _, id in ipairs(ids) do
      local call = S.calls[id]
      local r = render.row_of(call)
      if r then
        local size = render.block_size(call)
        levels[r] = size > 1 and ('>' .. call.level) or tostring(call.level - 1)
        for i = r + 1, r + size - 1 do
          levels[i] = tostring(call.level)
        end
        walk(call.children)
      end
    end
  end
  walk(S.order)
  S.folds = levels
  return levels
end

--- Recomputes the folds of the windows showing the chat after calls were added or their
--- output changed. (Neovim evaluates 'foldexpr' while the lines change, before the calls'
--- state is updated, so those results are stale.) Streamed text needs none: it is never
--- inside a call's block. `close_row`: a new fold there starts closed, even where the
--- cursor, following the end, went through it.
--- `rows` ({start, end}, 0-based, end exclusive) limits the update to the block of the call
--- that changed, where Neovim offers it (vim._foldupdate, as treesitter folding uses; a
--- whole-buffer update costs ~4 µs a line).
---@param close_row? integer
---@param rows? integer[]
function M.refresh(close_row, rows)
  S.folds = nil
  for _, win in ipairs(vim.fn.win_findbuf(render.buf())) do
    if vim.wo[win].foldmethod == 'expr' then
      vim.api.nvim_win_call(win, function()
        if rows and vim._foldupdate then
          vim._foldupdate(win, rows[1], rows[2])
        else
          vim.wo[win].foldexpr = vim.wo[win].foldexpr -- setting it updates every fold
        end
        if close_row then
          pcall(vim.cmd, ('%dfoldclose'):format(close_row + 1))
        end
      end)
    end
  end
end

--- 'foldexpr' of the chat window: a call's output (and sub-agent calls) fold under it.
---@return string
function M.foldexpr()
  return fold_levels()[vim.v.lnum - 1] or '0'
end

--- 'foldtext' of the chat window: the call's line, its status and how many lines it hides.
---@return table chunks
function M.foldtext()
  local row = vim.v.foldstart - 1
  local line = vim.api.nvim_buf_get_lines(render.buf(), row, row + 1, false)[1] or ''
  local call = render.call_at(row)
  local n = vim.v.foldend - vim.v.foldstart
  if not call then
    return { { line, 'Folded' } }
  end
  local label, hl = render.label(call)
  return { { line, 'InkChatCall' }, { '  ' .. label, hl }, { ('  (%d lines)'):format(n), 'InkChatNote' } }
end

--- The buffer as a window would show it, as text: sign column, lines, status text, and
--- closed folds as one line each (`folded`), or every line (`folded` false).
---@param folded boolean
---@return string[]
function M.dump(folded)
  local b = render.buf()
  local lines = vim.api.nvim_buf_get_lines(b, 0, -1, true)
  local marks = vim.api.nvim_buf_get_extmarks(b, render.ns, 0, -1, { details = true })
  local deco = {}
  for _, m in ipairs(marks) do
    deco[m[2]] = m[4]
  end
  local levels = fold_levels()
  local out, row = {}, 0
  while row < #lines do
    local d = deco[row]
    local sign = d and d.sign_text and vim.trim(d.sign_text) or ' '
    local virt = d and d.virt_text and d.virt_text[1] and ('  ‹' .. d.virt_text[1][1] .. '›') or ''
    local size = 1
    local call = d and render.call_at(row)
    if folded and call and (levels[row] or ''):sub(1, 1) == '>' then
      size = render.block_size(call)
      virt = virt .. ('  [+%d lines]'):format(size - 1)
    end
    out[#out + 1] = ('%s %s%s'):format(sign, lines[row + 1], virt)
    row = row + size
  end
  return out
end

return M

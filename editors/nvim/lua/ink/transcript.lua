--- The transcript buffer (ink://transcript): streamed answer text, tool calls with their
--- state, approvals and turn outcomes. It only renders; it never talks to the server.
local M = {}

local NAME = 'ink://transcript'
local ns = vim.api.nvim_create_namespace('ink.transcript')

---@type integer?
local buf
--- toolCallId → extmark id of the line that shows that call
---@type table<string, integer>
local tool_marks = {}
--- toolCallId → title, so updates (which carry no title) can redraw the line
---@type table<string, string>
local tool_titles = {}
--- toolCallId → extra indent of its line ('  ' for a `task` sub-agent's calls)
---@type table<string, string>
local tool_indent = {}
--- task toolCallId → toolCallId of the last sub-agent call listed under it
---@type table<string, string>
local last_child = {}
--- whether the last thing written was streamed answer text (chunks continue the line)
local streaming = false

--- The transcript buffer, created on first use.
---@return integer
function M.buf()
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, NAME)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'markdown'
  vim.bo[buf].modifiable = false
  tool_marks, tool_titles, tool_indent, last_child, streaming = {}, {}, {}, {}, false
  return buf
end

--- Runs `fn` with the buffer modifiable, then follows the end in windows showing it.
---@param fn fun(b: integer)
local function edit(fn)
  local b = M.buf()
  local follow = {}
  local last = vim.api.nvim_buf_line_count(b)
  for _, win in ipairs(vim.fn.win_findbuf(b)) do
    if vim.api.nvim_win_get_cursor(win)[1] >= last then
      follow[#follow + 1] = win
    end
  end
  vim.bo[b].modifiable = true
  fn(b)
  vim.bo[b].modifiable = false
  local n = vim.api.nvim_buf_line_count(b)
  for _, win in ipairs(follow) do
    vim.api.nvim_win_set_cursor(win, { n, 0 })
  end
end

--- Whether the buffer holds nothing yet (a fresh scratch buffer has one empty line).
---@param b integer
local function empty(b)
  return vim.api.nvim_buf_line_count(b) == 1 and vim.api.nvim_buf_get_lines(b, 0, 1, true)[1] == ''
end

--- Appends whole lines (each may contain newlines) after the current end.
---@param lines string[]
function M.append_lines(lines)
  local split = {}
  for _, l in ipairs(lines) do
    vim.list_extend(split, vim.split(l, '\n', { plain = true }))
  end
  edit(function(b)
    if empty(b) then
      vim.api.nvim_buf_set_lines(b, 0, -1, true, split)
    else
      vim.api.nvim_buf_set_lines(b, -1, -1, true, split)
    end
  end)
  streaming = false
end

--- Appends streamed answer text: it continues the last line until a newline arrives.
---@param text string
function M.append_text(text)
  if text == '' then
    return
  end
  if not streaming then
    M.append_lines({ '' })
  end
  edit(function(b)
    local parts = vim.split(text, '\n', { plain = true })
    local last = vim.api.nvim_buf_line_count(b)
    local tail = vim.api.nvim_buf_get_lines(b, last - 1, last, true)[1]
    parts[1] = tail .. parts[1]
    vim.api.nvim_buf_set_lines(b, last - 1, last, true, parts)
  end)
  streaming = true
end

--- Starts a new section: the user's prompt.
---@param prompt string
---@param context? string where it was asked from, e.g. "src/app.py:4-9"
function M.question(prompt, context)
  local lines = { '## You' .. (context and (' · ' .. context) or ''), '', prompt, '', '## Ink' }
  if not empty(M.buf()) then
    table.insert(lines, 1, '')
  end
  M.append_lines(lines)
end

---@param title string
---@param status string
---@param detail? string
---@param indent? string
local function tool_line(title, status, detail, indent)
  local icon = ({ pending = '○', in_progress = '◐', completed = '●', failed = '✗', cancelled = '■' })[status] or '·'
  return ('  %s%s %s  [%s%s]'):format(indent or '', icon, title, status, detail and (', ' .. detail) or '')
end

--- Inserts `line` right below the line of the call `after`; nil when that line is gone.
---@param after string toolCallId
---@param line string
---@return integer? row
local function insert_below(after, line)
  local b = M.buf()
  local mark = tool_marks[after]
  local pos = mark and vim.api.nvim_buf_get_extmark_by_id(b, ns, mark, {}) or {}
  if not pos[1] then
    return nil
  end
  local was_streaming = streaming -- answer text at the end goes on where it was
  edit(function()
    vim.api.nvim_buf_set_lines(b, pos[1] + 1, pos[1] + 1, true, { line })
  end)
  streaming = was_streaming
  return pos[1] + 1
end

--- Shows a registered tool call on its own line. A `task` sub-agent's call (`parent` is the
--- task's toolCallId) is indented and listed under its task, after the task's earlier calls.
---@param id string toolCallId
---@param title string
---@param status string
---@param parent? string
function M.tool_call(id, title, status, parent)
  local b = M.buf()
  local indent = parent and '  ' or ''
  local line = tool_line(title, status, nil, indent)
  local row = parent and insert_below(last_child[parent] or parent, line)
  if not row then
    M.append_lines({ line })
    row = vim.api.nvim_buf_line_count(b) - 1
  end
  tool_marks[id] = vim.api.nvim_buf_set_extmark(b, ns, row, 0, {})
  tool_titles[id] = title
  tool_indent[id] = indent
  if parent then
    last_child[parent] = id
  end
end

--- Redraws the line of a tool call with its new state.
---@param id string toolCallId
---@param status string
---@param detail? string
function M.tool_update(id, status, detail)
  local mark = tool_marks[id]
  if not mark then
    M.tool_call(id, id, status)
    mark = tool_marks[id]
  end
  local b = M.buf()
  local pos = vim.api.nvim_buf_get_extmark_by_id(b, ns, mark, {})
  if not pos[1] then
    return
  end
  local was_streaming = streaming
  edit(function()
    -- set_text, not set_lines: replacing the whole line would move the extmark off it
    local old = vim.api.nvim_buf_get_lines(b, pos[1], pos[1] + 1, true)[1]
    local line = tool_line(tool_titles[id] or id, status, detail, tool_indent[id])
    vim.api.nvim_buf_set_text(b, pos[1], 0, pos[1], #old, { line })
  end)
  streaming = was_streaming
end

--- A one-line note (approvals, errors, outcomes), set off from the answer text.
---@param text string
function M.note(text)
  M.append_lines({ '  › ' .. text })
end

--- The full transcript text (tests and :InkLog use it).
---@return string
function M.text()
  return table.concat(vim.api.nvim_buf_get_lines(M.buf(), 0, -1, true), '\n')
end

--- Shows the transcript in a split unless a window already shows it.
---@param how? 'vertical'|'horizontal'|'tab'|false
---@param size? integer
function M.open(how, size)
  local b = M.buf()
  if how == false or #vim.fn.win_findbuf(b) > 0 then
    return
  end
  local cur = vim.api.nvim_get_current_win()
  if how == 'tab' then
    vim.cmd('tabnew')
  else
    vim.cmd(how == 'horizontal' and 'belowright split' or 'vertical belowright split')
  end
  local scratch = vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_buf(0, b)
  if how == 'tab' and scratch ~= b and vim.api.nvim_buf_get_name(scratch) == '' and not vim.bo[scratch].modified then
    pcall(vim.api.nvim_buf_delete, scratch, {}) -- only the empty buffer :tabnew made
  end
  if size and how == 'horizontal' then
    vim.api.nvim_win_set_height(0, size)
  elseif size and how ~= 'tab' then
    vim.api.nvim_win_set_width(0, size)
  end
  vim.wo.wrap = true
  vim.wo.linebreak = true
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(b), 0 })
  if how ~= 'tab' then
    vim.api.nvim_set_current_win(cur) -- keep the user where they asked from
  end
end

return M

--- The chat buffer's content (ink://chat): the conversation as markdown, each tool call as one
--- line with a status sign and a fold holding its output, sub-agent calls nested in their
--- task's fold. It only renders what it is told; windows, keys and the server are elsewhere.
local calls = require('ink.calls')

local M = {}

local NAME = 'ink://chat'
M.ns = vim.api.nvim_create_namespace('ink.chat')

for group, link in pairs({
  InkChatQueued = 'Comment',
  InkChatRunning = 'DiagnosticInfo',
  InkChatDone = 'DiagnosticOk',
  InkChatThought = 'Comment',
  InkChatFailed = 'DiagnosticError',
  InkChatRefused = 'DiagnosticWarn',
  InkChatCancelled = 'Comment',
  InkChatApproval = 'WarningMsg',
  InkChatCall = 'Function',
  InkChatNote = 'Comment',
}) do
  vim.api.nvim_set_hl(0, group, { link = link, default = true })
end

---@type integer?
local buf
---@class ink.ChatState
local S = {
  ---@type table<string, ink.ChatCall>
  calls = {},
  ---@type string[] top-level calls in order
  order = {},
  ---@type 'you'|'ink'|nil the section the last lines belong to
  section = nil,
  streaming = false,
  ---@type table<integer, string>? row → fold level, until the calls change
  folds = nil,
}
M.state = S

--- The chat buffer, created on first use.
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
  S.calls, S.order, S.section, S.streaming, S.folds = {}, {}, nil, false, nil
  M.highlight(buf, 0)
  return buf
end

--- Markdown highlighting: treesitter where the parser is there (bundled since 0.10), until
--- the conversation grows past `chat.treesitter_max_lines`. tree-sitter-markdown re-parses
--- the whole buffer after every change (an append costs as much as a full parse, ~13 ms
--- per 1,000 lines), so beyond that the regex `syntax=markdown` takes over: it only looks
--- at the lines on screen.
---@param b integer
---@param lines integer
function M.highlight(b, lines)
  local max = require('ink.config').options.chat.treesitter_max_lines or 2000
  local active = vim.treesitter.highlighter.active[b] ~= nil
  if lines <= max and not active and not vim.b[b].ink_regex_syntax then
    if not pcall(vim.treesitter.start, b, 'markdown') then
      vim.b[b].ink_regex_syntax = true -- no parser: the filetype's syntax stays
      vim.bo[b].syntax = 'markdown'
    end
  elseif lines > max and active then
    vim.treesitter.stop(b)
    vim.b[b].ink_regex_syntax = true
    vim.bo[b].syntax = 'markdown'
  end
end

--- Empties the chat (a new or resumed conversation).
function M.reset()
  local b = M.buf()
  vim.bo[b].modifiable = true
  vim.api.nvim_buf_set_lines(b, 0, -1, true, {})
  vim.bo[b].modifiable = false
  vim.api.nvim_buf_clear_namespace(b, M.ns, 0, -1)
  S.calls, S.order, S.section, S.streaming, S.folds = {}, {}, nil, false, nil
  if vim.b[b].ink_regex_syntax then -- a new conversation: treesitter again
    vim.b[b].ink_regex_syntax = nil
    M.highlight(b, 0)
  end
  require('ink.chat_folds').refresh()
end

--- Runs `fn` with the buffer modifiable; windows whose cursor was on the last line follow.
---@param fn fun(b: integer)
local function edit(fn)
  local b = M.buf()
  local last = vim.api.nvim_buf_line_count(b)
  local follow = {}
  for _, win in ipairs(vim.fn.win_findbuf(b)) do
    if vim.api.nvim_win_get_cursor(win)[1] >= last then
      follow[#follow + 1] = win
    end
  end
  vim.bo[b].modifiable = true
  fn(b)
  vim.bo[b].modifiable = false
  local n = vim.api.nvim_buf_line_count(b)
  if n > last then
    M.highlight(b, n)
  end
  for _, win in ipairs(follow) do
    vim.api.nvim_win_set_cursor(win, { n, 0 })
  end
end

---@param b integer
local function is_empty(b)
  return vim.api.nvim_buf_line_count(b) == 1 and vim.api.nvim_buf_get_lines(b, 0, 1, true)[1] == ''
end

--- Appends lines at the end (the first replaces the single line of an empty buffer).
---@param lines string[]
local function append(lines)
  edit(function(b)
    if is_empty(b) then
      vim.api.nvim_buf_set_lines(b, 0, -1, true, lines)
    else
      vim.api.nvim_buf_set_lines(b, -1, -1, true, lines)
    end
  end)
  S.streaming = false
end

--- The last line of the buffer.
local function last_line()
  local b = M.buf()
  local n = vim.api.nvim_buf_line_count(b)
  return vim.api.nvim_buf_get_lines(b, n - 1, n, true)[1]
end

--- Starts a section (`## You` or `## Ink`) unless the last lines already belong to it.
---@param which 'you'|'ink'
---@param context? string
local function section(which, context)
  if S.section == which then
    return
  end
  local lines = { which == 'you' and ('## You' .. (context and (' · ' .. context) or '')) or '## Ink' }
  if not is_empty(M.buf()) then
    table.insert(lines, 1, '')
  end
  append(lines)
  S.section = which
end

--- Streams text into the current section: it continues the last line until a newline.
---@param text string
local function stream(text)
  if text == '' then
    return
  end
  if not S.streaming then
    append(last_line() == '' and {} or { '' })
    append({ '' })
  end
  edit(function(b)
    local parts = vim.split(text, '\n', { plain = true })
    local n = vim.api.nvim_buf_line_count(b)
    parts[1] = vim.api.nvim_buf_get_lines(b, n - 1, n, true)[1] .. parts[1]
    vim.api.nvim_buf_set_lines(b, n - 1, n, true, parts)
  end)
  S.streaming = true
end

--- The user's message (a whole prompt, or a replayed chunk of one).
---@param text string
---@param context? string where it was asked from, e.g. "app.py:2-3"
function M.user_text(text, context)
  section('you', context)
  stream(text)
end

--- Streamed answer text.
---@param text string
function M.agent_text(text)
  section('ink')
  stream(text)
end

--- Writes a block of lines that is rewritten in place (the to-do checklist): appended to the
--- answer the first time (the block's `mark` is set then), its `count` lines replaced after.
---@param blk {mark?: integer, count: integer}
---@param lines string[]
function M.block(blk, lines)
  local row = blk.mark and vim.api.nvim_buf_get_extmark_by_id(M.buf(), M.ns, blk.mark, {})[1]
  if row then
    local was = S.streaming
    edit(function(b)
      vim.api.nvim_buf_set_lines(b, row, row + blk.count, true, lines)
    end)
    S.streaming = was
  else
    section('ink')
    append((S.streaming and last_line() ~= '') and { '', unpack(lines) } or lines)
    row = vim.api.nvim_buf_line_count(M.buf()) - #lines
    blk.mark = vim.api.nvim_buf_set_extmark(M.buf(), M.ns, row, 0, { right_gravity = false })
    append({ '' })
  end
  blk.count = #lines
  S.folds = nil
end

--- A one-line note (turn outcome, resumed session), set off from the answer.
---@param text string
function M.note(text)
  append({ '', '> ' .. text })
end

---@param call ink.ChatCall
---@return integer
local function block_size(call)
  local n = 1 + #call.body
  for _, child in ipairs(call.children) do
    n = n + block_size(S.calls[child])
  end
  return n
end
M.block_size = block_size

--- Recomputes the folds of the windows showing the chat in the block of `call`'s top-level
--- call (chat_folds.refresh).
---@param call ink.ChatCall
---@param close_row? integer
local function refresh_folds(call, close_row)
  local top = call
  while top.parent and S.calls[top.parent] do
    top = S.calls[top.parent]
  end
  local row = M.row_of(top)
  require('ink.chat_folds').refresh(close_row, row and { row, row + block_size(top) } or nil)
end

---@param call ink.ChatCall
---@return integer? 0-based row of the call's line
local function row_of(call)
  local pos = vim.api.nvim_buf_get_extmark_by_id(M.buf(), M.ns, call.mark, {})
  return pos[1]
end
M.row_of = row_of

--- The status text shown after a call's line (also in its fold text).
---@param call ink.ChatCall
---@return string label, string hl, string sign
function M.label(call)
  local key = call.approval and 'approval' or call.status
  local parts = { call.approval and 'needs approval' or call.status }
  if call.duration and not call.approval then
    parts[#parts + 1] = call.duration
  end
  if call.decision then
    parts[#parts + 1] = call.decision
  end
  if call.approval and M.approval_hint then
    parts[#parts + 1] = M.approval_hint(call)
  end
  return table.concat(parts, ' · '), calls.highlights[key], calls.signs[key]
end

--- Redraws the sign and status text of a call.
---@param call ink.ChatCall
local function decorate(call)
  local row = row_of(call)
  if not row then
    return
  end
  local label, hl, sign = M.label(call)
  vim.api.nvim_buf_set_extmark(M.buf(), M.ns, row, 0, {
    id = call.mark,
    sign_text = sign,
    sign_hl_group = hl,
    virt_text = { { label, hl } },
    virt_text_pos = 'eol',
    line_hl_group = nil,
  })
end

--- Shows a new tool call: a line of its own, or nested at the end of its task's calls.
---@param u table the tool_call update
function M.tool_call(u)
  local id = u.toolCallId
  if S.calls[id] then
    return
  end
  local parent = type(u.parentToolCallId) == 'string' and S.calls[u.parentToolCallId] or nil
  local level = parent and parent.level + 1 or 1
  local line = ('%s▸ %s'):format(string.rep('  ', level - 1), u.title or id)
  local row
  if parent and row_of(parent) then
    row = row_of(parent) + 1
    for _, child in ipairs(parent.children) do
      row = row + block_size(S.calls[child])
    end
    edit(function(b)
      vim.api.nvim_buf_set_lines(b, row, row, true, { line })
    end)
  else
    section('ink')
    if S.streaming and last_line() ~= '' then
      append({ '' })
    end
    append({ line })
    row = vim.api.nvim_buf_line_count(M.buf()) - 1
  end
  ---@type ink.ChatCall
  local call = {
    id = id,
    title = u.title or id,
    kind = u.kind,
    status = calls.status(u.status),
    parent = parent and parent.id or nil,
    children = {},
    body = {},
    mark = vim.api.nvim_buf_set_extmark(M.buf(), M.ns, row, 0, {}),
    level = level,
    input = type(u.rawInput) == 'table' and u.rawInput or nil,
  }
  S.calls[id] = call
  if parent then
    parent.children[#parent.children + 1] = id
  else
    S.order[#S.order + 1] = id
  end
  decorate(call)
  if parent then -- the task's fold grew
    refresh_folds(call, #parent.children == 1 and #parent.body == 0 and row_of(parent) or nil)
  else
    -- a new last line without output folds nothing (its level, '0', is what Neovim
    -- computed); the levels are recomputed on the next evaluation
    S.folds = nil
  end
end

--- Replaces the output lines of a call (they sit after its line and its sub-agent calls).
---@param call ink.ChatCall
---@param lines string[]
function M.set_body(call, lines)
  local row = row_of(call)
  if not row then
    return
  end
  local start = row + 1
  for _, child in ipairs(call.children) do
    start = start + block_size(S.calls[child])
  end
  local was = S.streaming -- answer text at the end goes on where it was
  edit(function(b)
    vim.api.nvim_buf_set_lines(b, start, start + #call.body, true, lines)
  end)
  S.streaming = was
  local new_fold = #call.body == 0 and #call.children == 0 and #lines > 0
  call.body = lines
  decorate(call)
  refresh_folds(call, new_fold and row or nil)
end

--- Updates a call's state (and redraws it).
---@param id string
---@param fields table fields of ink.ChatCall to set (vim.NIL clears one)
function M.update(id, fields)
  local call = S.calls[id]
  if not call then
    return
  end
  for k, v in pairs(fields) do
    if v == vim.NIL then
      call[k] = nil
    else
      call[k] = v
    end
  end
  decorate(call)
end

---@param id string
---@return ink.ChatCall?
function M.call(id)
  return S.calls[id]
end

--- The call whose line (or output) is at a 0-based row: the innermost block holding it.
---@param row integer
---@return ink.ChatCall?
function M.call_at(row)
  local function find(ids)
    for _, id in ipairs(ids) do
      local call = S.calls[id]
      local r = row_of(call)
      if r and row >= r and row < r + block_size(call) then
        return find(call.children) or call
      end
    end
  end
  return find(S.order)
end

--- Calls (top-level and nested) in the order they were shown.
---@return ink.ChatCall[]
function M.all_calls()
  local out = {}
  local function walk(ids)
    for _, id in ipairs(ids) do
      out[#out + 1] = S.calls[id]
      walk(S.calls[id].children)
    end
  end
  walk(S.order)
  return out
end

return M

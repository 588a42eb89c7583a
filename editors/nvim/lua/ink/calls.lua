--- Pure helpers for tool calls in the chat: their status from the wire, the lines of their
--- output, and where <CR> on a call leads. No buffers, windows or requests here.
local M = {}

--- sign text and label of each status
M.signs = {
  queued = '◌',
  running = '◐',
  done = '✓',
  failed = '✗',
  refused = '⊘',
  cancelled = '■',
  approval = '?',
  thought = '…',
}

--- highlight group of each status (defined in chat_render with default links)
M.highlights = {
  queued = 'InkChatQueued',
  running = 'InkChatRunning',
  done = 'InkChatDone',
  failed = 'InkChatFailed',
  refused = 'InkChatRefused',
  cancelled = 'InkChatCancelled',
  approval = 'InkChatApproval',
  thought = 'InkChatThought',
}

--- The chat status of a call from the ACP status of an update and its output.
--- A failed call whose output says it was blocked (by the user or the policy) was refused;
--- a call the user's cancel ended is cancelled.
---@param status? ink.ToolStatus
---@param output? string rawOutput.text
---@return ink.CallStatus
function M.status(status, output)
  if status == 'in_progress' then
    return 'running'
  elseif status == 'completed' then
    return 'done'
  elseif status == 'cancelled' then
    return 'cancelled'
  elseif status == 'failed' then
    if type(output) == 'string' and output:match('^Tool "[^"]*" blocked by') then
      return 'refused'
    end
    return 'failed'
  end
  return 'queued'
end

--- A fence of backticks longer than any run of backticks in `lines` (at least three).
---@param lines string[]
---@return string
local function fence_of(lines)
  local longest = 2
  for _, l in ipairs(lines) do
    for run in l:gmatch('`+') do
      longest = math.max(longest, #run)
    end
  end
  return string.rep('`', longest + 1)
end

--- Wraps lines in a fenced code block (so markdown highlighting never leaks out of it).
---@param lines string[]
---@param lang? string
---@param indent? string
---@return string[]
function M.fenced(lines, lang, indent)
  indent = indent or ''
  local fence = fence_of(lines)
  local out = { indent .. fence .. (lang or '') }
  for _, l in ipairs(lines) do
    out[#out + 1] = indent .. l
  end
  out[#out + 1] = indent .. fence
  return out
end

--- Keeps at most `max` lines: the head for most calls, the tail for commands (their last
--- lines say how they ended), with a note of what was left out.
---@param lines string[]
---@param max integer
---@param tail boolean
---@return string[]
function M.cut(lines, max, tail)
  if #lines <= max then
    return lines
  end
  local left = #lines - max
  if tail then
    local out = { ('… %d earlier lines'):format(left) }
    vim.list_extend(out, lines, left + 1, #lines)
    return out
  end
  local out = vim.list_slice(lines, 1, max)
  out[#out + 1] = ('… %d more lines'):format(left)
  return out
end

--- A unified diff of two texts, as lines (no file headers).
---@param old string
---@param new string
---@return string[]
function M.diff_lines(old, new)
  local diff = vim.text and vim.text.diff or vim.diff
  local text = diff(old, new, { ctxlen = 2 }) --[[@as string]]
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    lines[#lines] = nil
  end
  return lines
end

--- The text of a delivered update's content blocks and its diff, if any.
---@param update table
---@return string text, { path: string, old: string, new: string }?
function M.output(update)
  local parts, diff = {}, nil
  for _, item in ipairs(type(update.content) == 'table' and update.content or {}) do
    if item.type == 'diff' and type(item.path) == 'string' then
      diff = { path = item.path, old = item.oldText or '', new = item.newText or '' }
    elseif item.type == 'content' and type(item.content) == 'table' then
      if item.content.type == 'text' and type(item.content.text) == 'string' then
        parts[#parts + 1] = item.content.text
      elseif item.content.type == 'image' then
        parts[#parts + 1] = ('[image %s]'):format(tostring(item.content.mimeType))
      end
    end
  end
  local raw = update.rawOutput
  if #parts == 0 and type(raw) == 'table' and type(raw.text) == 'string' then
    parts[1] = raw.text
  end
  return table.concat(parts, '\n'), diff
end

--- The folded lines of a call's output (a diff for edits, the text for the others).
---@param kind? string
---@param text string
---@param diff? { path: string, old: string, new: string }
---@param max integer
---@param indent? string
---@return string[]
function M.body(kind, text, diff, max, indent)
  if diff then
    local lines = M.cut(M.diff_lines(diff.old, diff.new), max, false)
    if #lines > 0 then
      return M.fenced(lines, 'diff', indent)
    end
  end
  if text == '' then
    return {}
  end
  local lines = vim.split(text:gsub('\n$', ''), '\n', { plain = true })
  return M.fenced(M.cut(lines, max, kind == 'execute'), nil, indent)
end

--- Where <CR> on a call leads: a file (and line) for calls that name a path.
---@param input? table rawInput
---@param root string workspace root for relative paths
---@return { path: string, line?: integer }?
function M.target(input, root)
  if type(input) ~= 'table' or type(input.path) ~= 'string' or input.path == '' then
    return nil
  end
  local path = input.path
  if not vim.startswith(path, '/') then
    path = vim.fs.joinpath(root, path)
  end
  local line = type(input.offset) == 'number' and math.max(1, math.floor(input.offset)) or nil
  return { path = vim.fs.normalize(path), line = line }
end

--- The toolCallId at the end of an applyEdit label, "ink: edit app.py (call_3)".
---@param label? string
---@return string?
function M.id_of_label(label)
  return type(label) == 'string' and label:match('%(([^()]+)%)$') or nil
end

--- A short token count: 950, 12.3k, 1.2M.
---@param n? number
---@return string
function M.tokens(n)
  if type(n) ~= 'number' then
    return '?'
  elseif n < 1000 then
    return tostring(math.floor(n))
  elseif n < 1e4 then
    return ('%.1fk'):format(n / 1000)
  elseif n < 1e6 then
    return ('%dk'):format(math.floor(n / 1000 + 0.5))
  end
  return ('%.1fM'):format(n / 1e6)
end

return M

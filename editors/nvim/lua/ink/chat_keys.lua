--- Buffer-local keys of the chat and its input area (from setup()'s chat.keymaps), the
--- `g?` list of them, and sending the prompt. The actions themselves are in chat.
local M = {}

---@class ink.ChatKey
---@field name string key of ink.ChatKeymaps
---@field modes string[]
---@field desc string
---@field run fun()

---@return ink.ChatKeymaps
local function keymaps()
  return require('ink.config').options.chat.keymaps or {}
end

--- Sends the input area's text as a question; the text stays until the question is sent.
function M.send()
  local window = require('ink.chat_window')
  local ibuf = window.input_buf()
  local text = vim.trim(table.concat(vim.api.nvim_buf_get_lines(ibuf, 0, -1, true), '\n'))
  if text == '' then
    vim.notify('ink: the prompt is empty', vim.log.levels.INFO)
    return
  end
  if require('ink.session').turn then
    vim.notify(('ink: Ink is still answering; %s stops it'):format(keymaps().stop or ':InkCancel'), vim.log.levels.WARN)
    return
  end
  vim.cmd('stopinsert')
  require('ink').ask(text, {
    bufnr = window.origin_buf() or ibuf,
    on_sent = function()
      if vim.api.nvim_buf_is_valid(ibuf) then
        vim.api.nvim_buf_set_lines(ibuf, 0, -1, true, {})
      end
    end,
  })
end

---@param in_input boolean
---@return ink.ChatKey[]
function M.list(in_input)
  local chat = function()
    return require('ink.chat')
  end
  local all = {
    { name = 'send', modes = { 'n', 'i' }, desc = 'send the prompt', run = M.send, input = true },
    { name = 'send_normal', modes = { 'n' }, desc = 'send the prompt', run = M.send, input = true },
    { name = 'accept', modes = { 'n' }, desc = 'accept / allow once the approval of the call under the cursor',
      run = function() chat().answer(true) end },
    { name = 'always', modes = { 'n' }, desc = 'always allow this tool (commands) for the session',
      run = function() chat().answer(true, true) end },
    { name = 'reject', modes = { 'n' }, desc = 'reject the approval of the call under the cursor',
      run = function() chat().answer(false) end },
    { name = 'open', modes = { 'n' }, desc = "open the call's file, diff or approval choices; else toggle its fold",
      run = function() chat().open() end },
    { name = 'stop', modes = { 'n' }, desc = 'stop the running turn', run = function() require('ink').cancel() end,
      both = true },
    { name = 'prompt', modes = { 'n' }, desc = 'go to the input area (insert mode)', run = function()
      local _, input = require('ink.chat_window').windows()
      if input then
        vim.api.nvim_set_current_win(input)
        vim.cmd('startinsert!')
      end
    end },
    { name = 'close', modes = { 'n' }, desc = 'close the chat', run = function() require('ink.chat_window').close() end },
    { name = 'help', modes = { 'n' }, desc = 'show these keys', run = function() M.help() end, both = true },
  }
  local out = {}
  for _, k in ipairs(all) do
    if k.both or (k.input or false) == in_input then
      out[#out + 1] = k
    end
  end
  return out
end

--- Sets the keys of the chat buffer (`in_input` false) or the input area.
---@param buf integer
---@param in_input boolean
function M.map(buf, in_input)
  local km = keymaps()
  for _, k in ipairs(M.list(in_input)) do
    local lhs = km[k.name]
    if lhs then
      vim.keymap.set(k.modes, lhs, k.run, { buffer = buf, nowait = true, desc = 'Ink: ' .. k.desc })
    end
  end
end

--- The `g?` text: every key of the chat and of the input area.
---@return string[]
function M.help_lines()
  local km, lines = keymaps(), {}
  for _, part in ipairs({ { 'chat', false }, { 'input area', true } }) do
    lines[#lines + 1] = part[1] .. ':'
    for _, k in ipairs(M.list(part[2])) do
      local lhs = km[k.name]
      if lhs then
        local mode = #k.modes > 1 and ' (insert too)' or ''
        lines[#lines + 1] = ('  %-8s %s%s'):format(lhs, k.desc, mode)
      end
    end
  end
  lines[#lines + 1] = ''
  lines[#lines + 1] = ':InkAccept / :InkReject also answer · :InkCancel stops · :InkSessions resumes'
  return lines
end

--- Shows the keys in a float; q, <Esc> or the help key close it.
---@return integer window
function M.help()
  local lines = M.help_lines()
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(b, 0, -1, true, lines)
  vim.bo[b].modifiable, vim.bo[b].bufhidden = false, 'wipe'
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  local win = vim.api.nvim_open_win(b, true, {
    relative = 'editor',
    row = 2,
    col = math.max(0, math.floor((vim.o.columns - width) / 2) - 1),
    width = math.min(width + 1, vim.o.columns - 2),
    height = #lines,
    border = 'rounded',
    title = ' Ink keys ',
    style = 'minimal',
  })
  for _, lhs in ipairs({ 'q', '<Esc>', keymaps().help or 'g?' }) do
    vim.keymap.set('n', lhs, function()
      pcall(vim.api.nvim_win_close, win, true)
    end, { buffer = b, nowait = true })
  end
  return win
end

return M

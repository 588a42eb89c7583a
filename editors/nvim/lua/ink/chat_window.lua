--- The chat's windows: the conversation (a split or a float) with an input area below it,
--- their buffer-local keys and the `g?` help. Content comes from chat_render; actions from chat.
local render = require('ink.chat_render')

local M = {}

local INPUT_NAME = 'ink://chat/input'

---@type integer?
local input_buf
---@type { chat?: integer, input?: integer, origin?: integer }
local wins = {}

---@return ink.ChatOptions
local function opts()
  return require('ink.config').options.chat
end

--- The input area's buffer, created on first use.
---@return integer
function M.input_buf()
  if input_buf and vim.api.nvim_buf_is_valid(input_buf) then
    return input_buf
  end
  input_buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(input_buf, INPUT_NAME)
  vim.bo[input_buf].buftype = 'nofile'
  vim.bo[input_buf].bufhidden = 'hide'
  vim.bo[input_buf].swapfile = false
  vim.bo[input_buf].filetype = 'markdown'
  require('ink.chat_keys').map(input_buf, true)
  require('ink.complete').attach(input_buf) -- @ mentions and / commands (<C-x><C-o>)
  return input_buf
end

---@param win? integer
local function valid(win)
  return win and vim.api.nvim_win_is_valid(win)
end

--- Whether the chat is on screen in the current tab page.
---@return boolean
function M.visible()
  return valid(wins.chat) and vim.api.nvim_win_get_tabpage(wins.chat) == vim.api.nvim_get_current_tabpage()
    or false
end

---@return integer? chat window, integer? input window
function M.windows()
  return valid(wins.chat) and wins.chat or nil, valid(wins.input) and wins.input or nil
end

--- Redraws the winbar of the chat window.
function M.refresh()
  if valid(wins.chat) then
    vim.wo[wins.chat].winbar = require('ink.chat').winbar()
  end
end

---@param win integer
local function chat_window_options(win)
  local wo = vim.wo[win]
  wo.wrap, wo.linebreak, wo.number, wo.relativenumber = true, true, false, false
  wo.signcolumn = 'yes:1'
  wo.foldmethod = 'expr'
  wo.foldexpr = "v:lua.require'ink.chat_folds'.foldexpr()"
  wo.foldtext = "v:lua.require'ink.chat_folds'.foldtext()"
  wo.foldlevel = 0
  wo.foldenable = true
  wo.fillchars = 'fold: '
  wo.winfixwidth = true
end

--- Closes both chat windows.
function M.close()
  for _, w in ipairs({ wins.input, wins.chat }) do
    if valid(w) and #vim.api.nvim_list_wins() > 1 then
      pcall(vim.api.nvim_win_close, w, true)
    end
  end
  wins.chat, wins.input = nil, nil
end

--- Opens the chat (or focuses its input area when it is open) with the configured layout.
---@param layout? 'vertical'|'horizontal'|'float'
function M.open(layout)
  local chat_buf, ibuf = render.buf(), M.input_buf()
  if not vim.b[chat_buf].ink_keys then -- once per buffer (a reset keeps the buffer)
    require('ink.chat_keys').map(chat_buf, false)
    vim.b[chat_buf].ink_keys = true
  end
  local cur = vim.api.nvim_get_current_win()
  if cur ~= wins.chat and cur ~= wins.input then
    wins.origin = cur -- questions are asked about the file shown there
  end
  if M.visible() and valid(wins.input) then
    vim.api.nvim_set_current_win(wins.input)
    return
  end
  M.close()
  local o = opts()
  layout = layout or o.layout or 'vertical'
  local ih = o.input_height or 5
  if layout == 'float' then
    local cols, lines = vim.o.columns, vim.o.lines - vim.o.cmdheight - 1
    local w = math.min(cols - 4, math.max(40, math.floor(cols * 0.8)))
    local h = math.max(6, math.floor(lines * 0.8) - ih - 2)
    local row, col = math.floor((lines - h - ih - 4) / 2), math.floor((cols - w) / 2)
    wins.chat = vim.api.nvim_open_win(chat_buf, false, {
      relative = 'editor', row = row, col = col, width = w, height = h,
      border = 'rounded', title = ' Ink ', title_pos = 'center', style = 'minimal',
    })
    wins.input = vim.api.nvim_open_win(ibuf, true, {
      relative = 'editor', row = row + h + 2, col = col, width = w, height = ih,
      border = 'rounded', title = ' prompt ', style = 'minimal',
    })
  else
    local size = o.size
    if layout == 'horizontal' then
      vim.cmd('botright ' .. (size or math.floor(vim.o.lines / 3)) .. 'split')
    else
      vim.cmd('botright ' .. (size or math.floor(vim.o.columns / 3)) .. 'vsplit')
    end
    wins.chat = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(wins.chat, chat_buf)
    vim.cmd('belowright ' .. ih .. 'split')
    wins.input = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(wins.input, ibuf)
    vim.wo[wins.input].winfixheight = true
  end
  chat_window_options(wins.chat)
  vim.wo[wins.input].winbar = ('prompt · %s sends'):format(o.keymaps.send or ':w')
  M.refresh()
  vim.api.nvim_win_set_cursor(wins.chat, { vim.api.nvim_buf_line_count(chat_buf), 0 })
  local group = vim.api.nvim_create_augroup('ink.chat.windows', { clear = true })
  vim.api.nvim_create_autocmd('WinClosed', {
    group = group,
    pattern = { tostring(wins.chat), tostring(wins.input) },
    callback = function()
      vim.schedule(M.close) -- one goes, both go
    end,
  })
end

--- The buffer questions from the chat are asked about: the file shown where :Ink was used.
---@return integer?
function M.origin_buf()
  if valid(wins.origin) then
    local b = vim.api.nvim_win_get_buf(wins.origin)
    if require('ink.client').is_file_buffer(b) then
      return b
    end
  end
end

--- Moves the chat window to a call (when it is not being read elsewhere) so it is seen.
---@param call ink.ChatCall
function M.reveal(call)
  local row = render.row_of(call)
  if row and valid(wins.chat) and vim.api.nvim_get_current_win() ~= wins.chat then
    vim.api.nvim_win_set_cursor(wins.chat, { row + 1, 0 })
  end
end

--- A window for opening files from the chat: the origin window, else a new split.
---@return integer
local function file_window()
  if valid(wins.origin) and wins.origin ~= wins.chat and wins.origin ~= wins.input then
    return wins.origin
  end
  vim.cmd('topleft vsplit')
  wins.origin = vim.api.nvim_get_current_win()
  return wins.origin
end

--- Opens a file (at a line) outside the chat windows.
---@param path string
---@param line? integer
function M.open_file(path, line)
  local win = file_window()
  vim.api.nvim_set_current_win(win)
  vim.cmd.edit(vim.fn.fnameescape(path))
  if line then
    pcall(vim.api.nvim_win_set_cursor, win, { line, 0 })
  end
end

--- Shows the change of an edit call side by side (read-only scratch buffers) in a new tab.
---@param call ink.ChatCall
function M.show_diff(call)
  local d = call.diff
  local rel = vim.fn.fnamemodify(d.path, ':~:.')
  local ft = vim.filetype.match({ filename = d.path })
  vim.cmd('tabnew')
  local tab = vim.api.nvim_get_current_tabpage()
  for i, side in ipairs({ { 'before', d.old }, { 'after', d.new } }) do
    if i == 2 then
      vim.cmd('rightbelow vsplit')
    end
    local b = vim.api.nvim_create_buf(false, true)
    local lines = vim.split(side[2]:gsub('\n$', ''), '\n', { plain = true })
    vim.api.nvim_buf_set_lines(b, 0, -1, true, lines)
    vim.api.nvim_buf_set_name(b, ('ink://diff/%s/%s/%s'):format(call.id, side[1], rel))
    vim.bo[b].bufhidden, vim.bo[b].modifiable = 'wipe', false
    if ft then
      vim.bo[b].filetype = ft
    end
    local placeholder = vim.api.nvim_get_current_buf()
    vim.api.nvim_win_set_buf(0, b)
    if i == 1 and placeholder ~= b then
      pcall(vim.api.nvim_buf_delete, placeholder, { force = true })
    end
    vim.cmd('diffthis')
    vim.wo.winbar = ('Ink · %s (%s)'):format(rel, side[1]):gsub('%%', '%%%%')
    vim.keymap.set('n', 'q', function()
      if vim.api.nvim_tabpage_is_valid(tab) then
        vim.cmd('tabclose ' .. vim.api.nvim_tabpage_get_number(tab))
      end
    end, { buffer = b, desc = 'Ink: close the diff' })
  end
end

return M

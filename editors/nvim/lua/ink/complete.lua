--- Completion in the chat's input area (its 'omnifunc', <C-x><C-o>): `@` completes paths of the
--- workspace (existing files, folders with a trailing /) and `@selection`, `@problems`; `/` at
--- the start of the prompt completes the slash commands ink-ls lists (ink/commands).
local protocol = require('ink.protocol')

local M = {}

M.MENTIONS = {
  { word = 'selection', menu = 'the selection in the file you came from' },
  { word = 'problems', menu = "the editor's diagnostics" },
}
M.MAX_PATHS = 200

--- The slash commands of the running server (nil when it does not list them).
---@return ink.CommandEntry[]?
local function commands()
  local c = require('ink.client').get()
  if not c or not c.initialized then
    return nil
  end
  local method = protocol.methods.commands_list
  if not method then
    return nil
  end
  -- MethodNotFound (an older server) or a timeout: no slash commands, nothing else breaks
  local reply = c:request_sync(method, vim.empty_dict(), 2000, 0)
  if not reply or reply.err or type(reply.result) ~= 'table' then
    return nil
  end
  return reply.result.commands
end

--- Workspace paths under the folder part of `typed` whose name starts with the rest.
---@param typed string what follows the `@`
---@param root string
local function paths(typed, root)
  local dir, prefix = typed:match('^(.*/)([^/]*)$')
  dir, prefix = dir or '', prefix or typed
  local out = {}
  local handle = vim.uv.fs_scandir(vim.fs.joinpath(root, dir))
  while handle and #out < M.MAX_PATHS do
    local name, kind = vim.uv.fs_scandir_next(handle)
    if not name then
      break
    end
    if name:sub(1, #prefix) == prefix and (prefix ~= '' or name:sub(1, 1) ~= '.') then
      local folder = kind == 'directory'
      out[#out + 1] = { word = dir .. name .. (folder and '/' or ''), menu = folder and 'folder' or 'file' }
    end
  end
  table.sort(out, function(a, b)
    return a.word < b.word
  end)
  return out
end

--- The items for what precedes the cursor: `@…` (paths, @selection, @problems) or `/…` at
--- the start of the prompt (slash commands). Returns the column the word starts at
--- (0-based, after the trigger) and the items, or nil when nothing is to complete.
---@param before string the line up to the cursor
---@param row integer 0-based row in the input area
---@param root string the workspace root
function M.items(before, row, root)
  local at_start, at_word = before:match('()@([^%s@]*)$')
  if at_start and (at_start == 1 or before:sub(at_start - 1, at_start - 1):match('%s')) then
    local out = {}
    for _, m in ipairs(M.MENTIONS) do
      if m.word:sub(1, #at_word) == at_word then
        out[#out + 1] = { word = m.word, menu = m.menu }
      end
    end
    vim.list_extend(out, paths(at_word, root))
    return at_start, out
  end
  local slash = row == 0 and before:match('^/([%w_:%-]*)$')
  if slash then
    local out = {}
    for _, cmd in ipairs(commands() or {}) do
      if cmd.name:sub(1, #slash) == slash then
        local hint = cmd.argumentHint and (' ' .. cmd.argumentHint) or ''
        out[#out + 1] = { word = cmd.name, abbr = '/' .. cmd.name .. hint, menu = cmd.description }
      end
    end
    return 1, out
  end
  return nil, {}
end

--- The 'omnifunc' of the input area (see :help complete-functions).
---@param findstart integer
---@param base string
function M.omnifunc(findstart, base)
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local before = vim.api.nvim_get_current_line():sub(1, col)
  if findstart ~= 1 then -- the typed word was taken out of the line and given as `base`
    before = before .. base
  end
  local c = require('ink.client').get()
  local root = c and c.root_dir or vim.fn.getcwd()
  local start, items = M.items(before, row - 1, root)
  if findstart == 1 then
    return start or -3 -- -3: nothing to complete here, leave completion mode quietly
  end
  return items
end

--- Sets the omnifunc of the input area buffer.
---@param b integer
function M.attach(b)
  vim.bo[b].omnifunc = "v:lua.require'ink.complete'.omnifunc"
end

return M

--- The model's to-do list (`todo_write`, the whole list each time) in the chat buffer: one
--- checklist block (`**To-do** · 1 of 3 done`, then `- [x]` / `- [~]` / `- [ ]` lines),
--- rewritten in place each time the model sends the list again. The calls themselves get no
--- line of their own: the checklist says it all.
local render = require('ink.chat_render')

local M = {}

local MARKS = { pending = '[ ]', in_progress = '[~]', completed = '[x]' }

---@class ink.TodoBlock
---@field mark? integer extmark on the block's first line
---@field count integer lines the block has now
local block = { count = 0 }
---@type table<string, true> the ids of the calls that sent the list
local ids = {}

--- The items of a `todo_write` call's arguments, or nil when they are not a to-do list.
---@param input any the tool_call update's rawInput
---@return {content: string, status: string}[]?
function M.items(input)
  if type(input) ~= 'table' or type(input.todos) ~= 'table' or vim.tbl_count(input) ~= 1 then
    return nil
  end
  local items = {}
  for _, t in ipairs(input.todos) do
    local status = type(t) == 'table' and (t.status == nil and 'pending' or t.status) or nil
    if type(t) ~= 'table' or type(t.content) ~= 'string' or t.content == '' or not MARKS[status] then
      return nil
    end
    items[#items + 1] = { content = t.content, status = status }
  end
  return items
end

--- The checklist's lines.
---@param items {content: string, status: string}[]
---@return string[]
function M.lines(items)
  local done = 0
  for _, item in ipairs(items) do
    done = done + (item.status == 'completed' and 1 or 0)
  end
  local out = { ('**To-do** · %d of %d done'):format(done, #items) }
  for _, item in ipairs(items) do
    out[#out + 1] = ('- %s %s'):format(MARKS[item.status], item.content:gsub('\n', ' '))
  end
  return out
end

--- Shows a `tool_call` update that is a to-do list; false for any other call.
---@param u table the tool_call update
---@return boolean
function M.tool_call(u)
  if u.parentToolCallId ~= nil and u.parentToolCallId ~= vim.NIL then
    return false -- a sub-agent's list stays in its task's fold
  end
  local items = M.items(u.rawInput)
  if not items then
    return false
  end
  ids[u.toolCallId] = true
  render.block(block, M.lines(items))
  return true
end

--- Whether a call's updates belong to the checklist (and are not shown as a call).
---@param id string
---@return boolean
function M.owns(id)
  return ids[id] == true
end

--- A new conversation: the next list starts a new block.
function M.reset()
  block.mark, block.count, ids = nil, 0, {}
end

return M

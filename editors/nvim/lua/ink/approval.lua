--- Command approval: window/showMessageRequest from ink-ls, answered through vim.ui.select
--- (so telescope/snacks/fzf pickers that replace it are used) or, while the chat is on
--- screen, in the chat on the call it asks about. One pending request, whichever place
--- answers first wins and the other is closed. It never decides by itself.
local transcript = require('ink.transcript')

local M = {}

---@type table<integer, ink.ApprovalRequest>
local pending = {}
local next_id = 0

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

--- Opens vim.ui.select for a pending request. A picker that opens a window of its own (a
--- float) is remembered, so answering in the chat can close it.
---@param id integer
---@return boolean opened
function M.select(id)
  local req = pending[id]
  if not req then
    return false
  end
  local before = vim.api.nvim_get_current_win()
  vim.ui.select(req.actions, {
    prompt = req.message,
    kind = 'ink.approval',
    format_item = function(action)
      return action.title
    end,
  }, function(choice)
    req.resolve(choice)
  end)
  local now = vim.api.nvim_get_current_win()
  if pending[id] and now ~= before and vim.api.nvim_win_get_config(now).relative ~= '' then
    req.picker_win = now
  end
  return true
end

--- Answers a pending request with the action whose optionId (or title) is `option`.
---@param id integer
---@param option string
---@return boolean answered
function M.answer(id, option)
  local req = pending[id]
  if not req then
    return false
  end
  for _, action in ipairs(req.actions) do
    if action.optionId == option or action.title == option then
      req.resolve(action)
      return true
    end
  end
  -- clients without additionalPropertiesSupport get titles only: map the option id
  local titles = { allow_once = 'Allow once', allow_always = 'Always allow', reject_once = 'Reject' }
  for _, action in ipairs(req.actions) do
    if action.title == titles[option] then
      req.resolve(action)
      return true
    end
  end
  return false
end

--- The pending requests, oldest first.
---@return ink.ApprovalRequest[]
function M.pending()
  local out = vim.tbl_values(pending)
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

--- Answers every pending request with "dismissed" (the turn is over: nobody waits for it).
function M.withdraw_all()
  for _, req in ipairs(M.pending()) do
    req.resolve(nil)
  end
end

--- Handler for window/showMessageRequest (runs in the request's coroutine).
---@param params lsp.ShowMessageRequestParams|{ ink?: { toolCallId?: string } }
---@param ctx lsp.HandlerContext
---@return lsp.MessageActionItem|vim.NIL
function M.handler(_, params, ctx)
  local actions = params.actions or {}
  if #actions == 0 then
    vim.notify(params.message, vim.log.levels.WARN, { title = 'Ink' })
    return vim.NIL
  end
  local co, is_main = coroutine.running()
  if not co or is_main then
    return vim.lsp.handlers[ctx.method](nil, params, ctx) -- the built-in inputlist() path
  end
  local first, rest = params.message:match('^([^\n]*)\n?(.*)$')
  transcript.note(('approval asked: %s %s'):format(first, rest ~= '' and rest or ''))
  next_id = next_id + 1
  local done = false
  ---@type ink.ApprovalRequest
  local req = {
    id = next_id,
    message = params.message,
    actions = actions,
    call_id = type(params.ink) == 'table' and params.ink.toolCallId or nil,
    resolve = function() end,
  }
  req.resolve = function(choice)
    if done then
      return -- answered already: a late answer from the other place is ignored
    end
    done = true
    pending[req.id] = nil
    -- vim.ui.select may call back before this coroutine yielded (the default one does)
    vim.schedule(function()
      coroutine.resume(co, choice)
    end)
  end
  pending[req.id] = req
  local chat_window = require('ink.chat_window')
  local in_chat = chat_window.visible()
  require('ink.chat').approval_asked(req)
  -- lets users (and tests) react to a pending approval, e.g. with a bell or a notification
  fire('InkApprovalRequest', {
    id = req.id,
    message = params.message,
    actions = actions,
    toolCallId = req.call_id,
    in_chat = in_chat,
  })
  if in_chat then
    vim.api.nvim_echo({ { first .. ' ' .. rest .. ' (answer in the Ink chat)', 'WarningMsg' } }, true, {})
  else
    M.select(req.id)
  end
  local choice = coroutine.yield() --[[@as lsp.MessageActionItem?]]
  if req.picker_win and vim.api.nvim_win_is_valid(req.picker_win) then
    pcall(vim.api.nvim_win_close, req.picker_win, true) -- answered in the chat
  end
  require('ink.chat').approval_done(req, choice)
  transcript.note(choice and ('you chose: ' .. choice.title) or 'approval dismissed (rejected)')
  fire('InkApprovalDone', { id = req.id, toolCallId = req.call_id, choice = choice })
  return choice or vim.NIL
end

return M

--- Command approval: window/showMessageRequest from ink-ls answered through vim.ui.select
--- (so telescope/snacks/fzf pickers that replace it are used). It never decides by itself.
local transcript = require('ink.transcript')

local M = {}

--- Handler for window/showMessageRequest (runs in the request's coroutine).
---@param params lsp.ShowMessageRequestParams
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
  -- lets users (and tests) react to a pending approval, e.g. with a bell or a notification
  vim.api.nvim_exec_autocmds('User', {
    pattern = 'InkApprovalRequest',
    modeline = false,
    data = { message = params.message, actions = actions },
  })
  vim.ui.select(actions, {
    prompt = params.message,
    kind = 'ink.approval',
    format_item = function(action)
      return action.title
    end,
  }, function(choice)
    -- vim.ui.select may call back before this coroutine yielded (the default one does)
    vim.schedule(function()
      coroutine.resume(co, choice)
    end)
  end)
  local choice = coroutine.yield() --[[@as lsp.MessageActionItem?]]
  transcript.note(choice and ('you chose: ' .. choice.title) or 'approval dismissed (rejected)')
  return choice or vim.NIL
end

return M

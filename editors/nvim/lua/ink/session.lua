--- Session state of the plugin: the current session id and the running turn; sends
--- ink/session/* requests and routes ink/session/update to the transcript. No UI layout here.
local protocol = require('ink.protocol')
local transcript = require('ink.transcript')
local usage = require('ink.usage')

local M = {}

---@type string? the session the next question continues
M.session_id = nil
---@type ink.Turn?
M.turn = nil
---@type { inputTokens: integer, outputTokens: integer }?
M.usage = nil

local next_token = 0
local U, P = protocol.updates, protocol.phases

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

---@param ms number?
local function duration(ms)
  if type(ms) ~= 'number' then
    return nil
  end
  return ms < 1000 and ('%d ms'):format(math.floor(ms + 0.5)) or ('%.1f s'):format(ms / 1000)
end

---@param update table
---@return string? first line of a failed call's output
local function failure_text(update)
  local raw = update.rawOutput
  local text = type(raw) == 'table' and raw.text
  if type(text) == 'string' and text ~= '' then
    return (text:match('^[^\n]*'))
  end
end

--- Handler for the ink/session/update notification.
---@param params ink.SessionUpdateParams
---@param ctx lsp.HandlerContext
function M.on_update(_, params, ctx)
  local turn = M.turn
  if turn and turn.client_id == ctx.client_id and not turn.session_id then
    turn.session_id = params.sessionId
    M.session_id = params.sessionId
  end
  local u = params.update or {}
  local kind = u.sessionUpdate
  require('ink.chat').on_update(params)
  if kind == U.user_message_chunk then
    local content = u.content or {}
    if content.type == 'text' and type(content.text) == 'string' then
      transcript.question(content.text, require('ink.chat').context_label(u.context))
    end
  elseif kind == U.agent_message_chunk then
    local content = u.content or {}
    if content.type == 'text' and type(content.text) == 'string' then
      transcript.append_text(content.text)
    end
  elseif kind == U.tool_call then
    -- a task's sub-agent calls carry the task's id; the transcript lists them under it
    local parent = type(u.parentToolCallId) == 'string' and u.parentToolCallId or nil
    transcript.tool_call(u.toolCallId, u.title or u.toolCallId, u.status or 'pending', parent)
  elseif kind == U.tool_call_update then
    if u.phase == P.settled then
      transcript.tool_update(u.toolCallId, u.status, duration(u.durationMs))
    elseif u.phase == P.delivered then
      if u.status == 'failed' then
        transcript.note(failure_text(u) or 'the call failed')
      end
    else
      transcript.tool_update(u.toolCallId, u.status or 'in_progress')
    end
  elseif kind == U.usage_update then
    M.usage = { inputTokens = u.inputTokens, outputTokens = u.outputTokens }
    usage.update(u)
  elseif kind == U.compaction then
    usage.update(u)
    if u.phase == 'start' then
      transcript.note('compacting the conversation…')
    elseif u.phase == 'end' then
      transcript.note(('compacted the conversation: %s → %s tokens'):format(tostring(u.tokensBefore), tostring(u.tokensAfter)))
    else
      transcript.note('compaction failed: ' .. tostring(u.error))
    end
  elseif kind == U.instructions_loaded then
    local names = vim.tbl_map(function(p)
      return vim.fn.fnamemodify(p, ':~:.')
    end, u.paths or {})
    transcript.note('instructions: ' .. table.concat(names, ', ') .. (u.truncated and ' (cut at 32 KiB)' or ''))
  elseif kind == U.error then
    transcript.note('error: ' .. tostring(u.message))
  elseif kind == U.warning then
    transcript.note('warning: ' .. tostring(u.message))
  elseif kind == U.turn_end then
    local usage = M.usage
      and (' · %s tokens in, %s out'):format(tostring(M.usage.inputTokens), tostring(M.usage.outputTokens))
      or ''
    if u.stopReason == protocol.stop_reasons.end_turn then
      transcript.note('done' .. usage)
    else
      transcript.note('stopped: ' .. tostring(u.stopReason) .. usage)
    end
    M.usage = nil
    -- an edit or a question still on screen can no longer be answered for this turn
    require('ink.review').abandon(ctx.client_id, 'the turn ended before the edit was reviewed')
    require('ink.approval').withdraw_all()
  end
  fire('InkUpdate', params)
end

--- Records the progress message of the running turn (from LspProgress).
---@param client_id integer
---@param params { token: string|integer, value: table }
function M.on_progress(client_id, params)
  local turn = M.turn
  if turn and turn.client_id == client_id and params.token == turn.token then
    turn.progress = params.value and params.value.message or turn.progress
  end
end

--- Forgets the turn of a client that exited and rejects its pending reviews.
---@param client_id integer
function M.on_exit(client_id, code, signal)
  if M.turn and M.turn.client_id == client_id then
    M.turn = nil
    transcript.note(('ink-ls exited (code %s, signal %s)'):format(tostring(code), tostring(signal)))
  end
  require('ink.review').abandon(client_id, 'ink-ls exited')
  require('ink.approval').withdraw_all()
end

--- Sends a question. `params` are the ink/session/prompt params without sessionId and token.
---@param client vim.lsp.Client
---@param params table
---@param bufnr integer
---@param on_done? fun(err: table?, result: ink.SessionPromptResult?)
---@return boolean sent
function M.prompt(client, params, bufnr, on_done)
  if M.turn then
    vim.notify('Ink is still answering; :InkCancel first', vim.log.levels.WARN)
    return false
  end
  next_token = next_token + 1
  local token = ('ink-nvim-%d'):format(next_token)
  params = vim.tbl_extend('force', params, { sessionId = M.session_id, workDoneToken = token })
  ---@type ink.Turn
  local turn = { client_id = client.id, token = token, session_id = M.session_id }
  M.turn = turn
  local ok, request_id = client:request(protocol.methods.session_prompt, params, function(err, result)
    if M.turn == turn then
      M.turn = nil
    end
    if err then
      transcript.note(('error %s: %s'):format(tostring(err.code), tostring(err.message)))
      if err.code == protocol.errors.session_not_found then
        M.session_id = nil -- stale id: the next question starts a new session
      end
    else
      M.session_id = result.sessionId
      if result.stopReason == protocol.stop_reasons.error and result.error then
        transcript.note('failed: ' .. result.error)
      end
    end
    require('ink.chat_window').refresh()
    fire('InkTurnEnd', { err = err, result = result })
    if on_done then
      on_done(err, result)
    end
  end, bufnr)
  if not ok then
    M.turn = nil
    transcript.note('could not send the question: ink-ls is not running')
    return false
  end
  turn.request_id = request_id
  require('ink.chat_window').refresh()
  return true
end

--- Cancels the running turn: ink/session/cancel once the session is known, else
--- $/cancelRequest of the prompt. Returns false when nothing is running.
---@return boolean
function M.cancel()
  local turn = M.turn
  local client = turn and vim.lsp.get_client_by_id(turn.client_id)
  if not turn or not client then
    return false
  end
  if turn.session_id then
    client:request(protocol.methods.session_cancel, { sessionId = turn.session_id }, function() end)
  elseif turn.request_id then
    client:cancel_request(turn.request_id)
  end
  transcript.note('cancelling…')
  return true
end

--- Starts a fresh session for the next question (closing the old one on the server).
---@return boolean false when a turn is running
function M.new_session()
  if M.turn then
    return false
  end
  local old = M.session_id
  M.session_id = nil
  usage.reset()
  local client = require('ink.client').get()
  if old and client then
    client:request(protocol.methods.session_close, { sessionId = old }, function() end)
  end
  transcript.append_lines({ '', '---', '' })
  require('ink.chat').reset()
  return true
end

--- Compacts the current session now (ink/session/compact); false with a reason when it
--- cannot start. The turn shows as running (status, :InkCancel) until it is done.
---@param on_done? fun(err: table?, result: table?)
---@return boolean started, string? reason
function M.compact(on_done)
  if M.turn then
    return false, 'a turn is running'
  end
  local client = require('ink.client').get()
  if not M.session_id or not client then
    return false, 'no conversation to compact yet'
  end
  next_token = next_token + 1
  local token = ('ink-nvim-%d'):format(next_token)
  ---@type ink.Turn
  local turn = { client_id = client.id, token = token, session_id = M.session_id, progress = 'compacting the conversation' }
  M.turn = turn
  local params = { sessionId = M.session_id, workDoneToken = token }
  local ok, request_id = client:request(protocol.methods.session_compact, params, function(err, result)
    if M.turn == turn then
      M.turn = nil
    end
    if err then
      transcript.note(('compaction failed (%s): %s'):format(tostring(err.code), tostring(err.message)))
    elseif result and not result.compacted and not result.cancelled then
      transcript.note('nothing older than the latest turn to compact')
    end
    if on_done then
      on_done(err, result)
    end
  end)
  if not ok then
    M.turn = nil
    return false, 'ink-ls is not running'
  end
  turn.request_id = request_id
  return true
end


--- Resumes a stored session: ink/session/load replays its conversation as updates (into
--- the chat, which starts empty), then the next question continues it.
---@param client vim.lsp.Client
---@param session_id string
---@param title? string
---@param on_done? fun(err: table?, result: table?)
---@return boolean sent
function M.load(client, session_id, title, on_done)
  if M.turn then
    vim.notify('ink: a turn is running; :InkCancel it first', vim.log.levels.WARN)
    return false
  end
  require('ink.chat').reset(title)
  transcript.append_lines({ '', '---', '' })
  transcript.note('resuming session ' .. session_id)
  local ok = client:request(protocol.methods.session_load, { sessionId = session_id }, function(err, result)
    local chat = require('ink.chat')
    if err then
      require('ink.chat_render').note(('could not resume the session: %s'):format(tostring(err.message)))
    else
      M.session_id = result.sessionId
      chat.header.title = result.title or title
      require('ink.chat_render').note(('resumed · %d messages'):format(result.messageCount or 0))
      require('ink.chat_window').refresh()
    end
    fire('InkSessionLoaded', { err = err, result = result })
    if on_done then
      on_done(err, result)
    end
  end)
  return ok
end

--- One-line status for statuslines: what the running turn does, and how full the model's
--- context window is once known ("Ink 3.1k/8.2k (38%)"); "" before anything is known.
---@return string
function M.status()
  local turn = M.turn
  local context = usage.context()
  if not turn then
    return context and ('Ink ' .. context) or ''
  end
  return 'Ink: ' .. (turn.progress or 'working…') .. (context and (' · ' .. context) or '')
end

return M

--- The chat: ink/session/update rendered into the chat buffer, approvals kept in step with
--- the diff review and the command prompt, and the actions behind the chat's keys.
--- Windows and keymaps live in chat_window; the buffer content in chat_render.
local calls = require('ink.calls')
local protocol = require('ink.protocol')
local render = require('ink.chat_render')
local todos = require('ink.chat_todos')

local M = {}

local U, P = protocol.updates, protocol.phases

---@class ink.ChatHeader  what the chat window's winbar shows
M.header = {
  ---@type string?
  title = nil,
  ---@type table? the latest usage_update (inputTokens, outputTokens, contextWindow?, contextTokens?)
  usage = nil,
}

---@param ms number?
local function duration(ms)
  if type(ms) ~= 'number' then
    return nil
  end
  return ms < 1000 and ('%d ms'):format(math.floor(ms + 0.5)) or ('%.1f s'):format(ms / 1000)
end

local function keys()
  return require('ink.config').options.chat.keymaps or {}
end

--- The keys offered on a call that waits for an answer.
---@param call ink.ChatCall
---@return string
function render.approval_hint(call)
  local k, out = keys(), {}
  local function add(key, what)
    if key then
      out[#out + 1] = key .. ' ' .. what
    end
  end
  if call.approval.kind == 'edit' then
    add(k.accept, 'accept')
    add(k.reject, 'reject')
    add(k.open, 'diff')
  else
    add(k.accept, 'allow once')
    add(k.always, 'always')
    add(k.reject, 'reject')
    add(k.open, 'choices')
  end
  return table.concat(out, ' · ')
end

--- The winbar text: title, tokens of the turn and, when the server sends them, the share of
--- the context window in use.
---@return string
function M.winbar()
  local parts = { 'Ink' }
  if M.header.title then
    parts[#parts + 1] = M.header.title
  end
  local u = M.header.usage
  if u then
    parts[#parts + 1] = ('%s in · %s out'):format(calls.tokens(u.inputTokens), calls.tokens(u.outputTokens))
    if type(u.contextTokens) == 'number' and type(u.contextWindow) == 'number' and u.contextWindow > 0 then
      parts[#parts + 1] = ('context %d%% (%s/%s)'):format(
        math.floor(100 * u.contextTokens / u.contextWindow + 0.5),
        calls.tokens(u.contextTokens),
        calls.tokens(u.contextWindow)
      )
      if type(u.contextWindowSource) == 'string' then
        parts[#parts] = parts[#parts]:gsub('%)$', ', ' .. u.contextWindowSource .. ')')
      end
    end
  end
  local running = require('ink.session').turn
  if running then
    parts[#parts + 1] = 'running · ' .. (keys().stop or ':InkCancel') .. ' stops'
  end
  return (table.concat(parts, ' · '):gsub('%%', '%%%%'))
end

local function refresh_winbar()
  require('ink.chat_window').refresh()
end

--- Shows a question asked from Neovim (:InkAsk or the input area).
---@param prompt string
---@param context? string
function M.question(prompt, context)
  render.user_text(prompt, context)
  refresh_winbar()
end

--- "app.py:2-3" for the context of a replayed prompt.
---@param ctx? { path?: string, firstLine?: integer, lastLine?: integer }
---@return string?
function M.context_label(ctx)
  if type(ctx) ~= 'table' or type(ctx.path) ~= 'string' then
    return nil
  end
  if type(ctx.firstLine) == 'number' then
    return ('%s:%d-%d'):format(ctx.path, ctx.firstLine, ctx.lastLine or ctx.firstLine)
  end
  return ctx.path
end

---@type { id: string, text: string }? the reasoning block being streamed
local thinking
local thinking_blocks = 0

--- The model's reasoning: a "Thinking" line whose text sits in a closed fold under it (like a
--- call's output), grown as it streams; the next answer text or call ends the block.
---@param text string
function M.think(text)
  if not thinking then
    thinking_blocks = thinking_blocks + 1
    thinking = { id = 'thinking:' .. thinking_blocks, text = '' }
    render.tool_call({ toolCallId = thinking.id, title = 'Thinking', kind = 'think' })
    render.update(thinking.id, { status = 'thought' })
  end
  thinking.text = thinking.text .. text
  local call = render.call(thinking.id)
  if call then
    local lines = vim.split(vim.trim(thinking.text), '\n', { plain = true })
    for i, line in ipairs(lines) do
      lines[i] = '  ' .. line
    end
    render.set_body(call, lines)
  end
end

--- Renders one ink/session/update (live turns and replayed sessions alike).
---@param params ink.SessionUpdateParams
function M.on_update(params)
  local u = params.update or {}
  local kind = u.sessionUpdate
  if kind ~= U.thinking and kind ~= U.usage_update then
    thinking = nil
  end
  if kind == U.thinking then
    local c = u.content or {}
    if c.type == 'text' and type(c.text) == 'string' and c.text ~= '' then
      M.think(c.text)
    end
  elseif kind == U.user_message_chunk then
    local c = u.content or {}
    if c.type == 'text' and type(c.text) == 'string' then
      render.user_text(c.text, M.context_label(u.context))
    end
  elseif kind == U.agent_message_chunk then
    local c = u.content or {}
    if c.type == 'text' and type(c.text) == 'string' then
      render.agent_text(c.text)
    end
  elseif kind == U.tool_call then
    if not todos.tool_call(u) then
      render.tool_call(u)
    end
  elseif kind == U.tool_call_update then
    if todos.owns(u.toolCallId) then
      return
    end
    local call = render.call(u.toolCallId)
    if not call then
      render.tool_call({ toolCallId = u.toolCallId, title = u.toolCallId, status = u.status })
      call = render.call(u.toolCallId)
    end
    local output = type(u.rawOutput) == 'table' and u.rawOutput.text or nil
    local fields = { status = calls.status(u.status, output) }
    if u.phase == P.settled then
      fields.duration = duration(u.durationMs)
    elseif u.phase == P.delivered then
      local text, diff = calls.output(u)
      fields.diff = diff or call.diff
      fields.approval = vim.NIL -- whatever was asked is over
      render.update(u.toolCallId, fields)
      local max = require('ink.config').options.chat.max_output_lines or 200
      render.set_body(call, calls.body(call.kind, text, diff, max, string.rep('  ', call.level - 1)))
      return
    end
    render.update(u.toolCallId, fields)
  elseif kind == U.usage_update then
    M.header.usage = u
    refresh_winbar()
  elseif kind == U.error then
    render.note('error: ' .. tostring(u.message))
  elseif kind == U.warning then
    render.note('warning: ' .. tostring(u.message))
  elseif kind == U.model_queue then
    local line = require('ink.queue').line(u)
    if line then
      render.note(line)
    end
  elseif kind == U.turn_end then
    local usage = M.header.usage
        and (' · %s tokens in, %s out'):format(tostring(M.header.usage.inputTokens), tostring(M.header.usage.outputTokens))
      or ''
    if u.stopReason == protocol.stop_reasons.end_turn then
      render.note('done' .. usage)
    else
      render.note('stopped: ' .. tostring(u.stopReason) .. usage)
    end
    vim.schedule(refresh_winbar) -- the turn is forgotten after its response
  end
end

--- The call a command approval asks about: the id the server sent, else the queued call
--- whose title names the command (or the latest queued call without a question).
---@param message string
---@param id? string
---@return ink.ChatCall?
function M.call_for_approval(message, id)
  if id and render.call(id) then
    return render.call(id)
  end
  local detail = message:match('\n(.*)$') or message
  local fallback
  for _, call in ipairs(render.all_calls()) do
    if call.status == 'queued' and not call.approval then
      if call.title:find(detail, 1, true) then
        return call
      end
      fallback = call
    end
  end
  return fallback
end

--- A command approval is waiting (approval.lua): show it on its call.
---@param req ink.ApprovalRequest
function M.approval_asked(req)
  local call = M.call_for_approval(req.message, req.call_id)
  if call then
    req.call_id = call.id
    render.update(call.id, { approval = { kind = 'command', id = req.id } })
    require('ink.chat_window').reveal(call)
  else
    render.note(('approval asked: %s (%s)'):format(req.message:gsub('\n', ' '), render.approval_hint({
      approval = { kind = 'command' },
    })))
  end
end

--- A command approval was answered (anywhere) or withdrawn.
---@param req ink.ApprovalRequest
---@param choice? lsp.MessageActionItem
function M.approval_done(req, choice)
  if req.call_id and render.call(req.call_id) then
    local decision = choice and choice.title:lower() or 'dismissed'
    if choice and choice.optionId == protocol.approval_options.allow_once then
      decision = 'allowed once'
    elseif choice and choice.optionId == protocol.approval_options.allow_always then
      decision = 'always allowed'
    elseif choice and choice.optionId == protocol.approval_options.reject_once then
      decision = 'rejected'
    end
    render.update(req.call_id, { approval = vim.NIL, decision = decision })
  end
end

--- An edit waits for review (review.lua): show it on its call; the diff goes in its fold.
---@param data { id: integer, toolCallId?: string, files?: table[] }
function M.review_opened(data)
  local call = data.toolCallId and render.call(data.toolCallId)
  if not call then
    return
  end
  render.update(call.id, { approval = { kind = 'edit', id = data.id } })
  local f = data.files and data.files[1]
  if f then
    call.diff = { path = f.path, old = f.current, new = f.proposed }
    local max = require('ink.config').options.chat.max_output_lines or 200
    render.set_body(call, calls.body(call.kind, '', call.diff, max, string.rep('  ', call.level - 1)))
  end
end

--- The review of an edit was decided (in the diff, by a command, or from the chat).
---@param data { toolCallId?: string, accepted: boolean, applied: boolean }
function M.review_closed(data)
  if data.toolCallId and render.call(data.toolCallId) then
    local decision = data.applied and 'accepted' or (data.accepted and 'accepted, not applied' or 'rejected')
    render.update(data.toolCallId, { approval = vim.NIL, decision = decision })
  end
end

--- The call under the cursor in the chat window, else the first call waiting for an answer.
---@param waiting boolean only a call with a pending approval
---@return ink.ChatCall?
function M.target_call(waiting)
  local win = vim.api.nvim_get_current_win()
  if vim.api.nvim_win_get_buf(win) == render.buf() then
    local call = render.call_at(vim.api.nvim_win_get_cursor(win)[1] - 1)
    if call and (call.approval or not waiting) then
      return call
    end
  end
  if waiting then
    for _, call in ipairs(render.all_calls()) do
      if call.approval then
        return call
      end
    end
  end
end

--- Answers the approval of a call: accept (`always` for a command's "Always allow") or reject.
---@param accept boolean
---@param always? boolean
---@return boolean answered
function M.answer(accept, always)
  local call = M.target_call(true)
  if not call then
    vim.notify('ink: no approval is waiting', vim.log.levels.INFO)
    return false
  end
  if call.approval.kind == 'edit' then
    return require('ink.review').decide_call(call.id, accept)
  end
  local o = protocol.approval_options
  local option = not accept and o.reject_once or (always and o.allow_always or o.allow_once)
  return require('ink.approval').answer(call.approval.id, option)
end

--- <CR> on a call: the review's diff or the approval choices while it waits; else the diff
--- of an edit, else its file (at the line read); else its output fold opens or closes.
function M.open()
  local call = M.target_call(false)
  if not call then
    return false
  end
  if call.approval then
    if call.approval.kind == 'edit' then
      return require('ink.review').focus_call(call.id)
    end
    return require('ink.approval').select(call.approval.id)
  end
  local root = (require('ink.client').get() or {}).root_dir or vim.fn.getcwd()
  local window = require('ink.chat_window')
  if call.diff then
    window.show_diff(call)
    return true
  end
  local target = calls.target(call.input, root)
  local stat = target and vim.uv.fs_stat(target.path)
  if target and stat and stat.type == 'file' then
    window.open_file(target.path, target.line)
    return true
  end
  vim.cmd('normal! za')
  return true
end

--- A new conversation (after :InkNewSession or before a resumed one).
---@param title? string
function M.reset(title)
  render.reset()
  todos.reset()
  thinking = nil
  M.header.title, M.header.usage = title, nil
  refresh_winbar()
end

return M

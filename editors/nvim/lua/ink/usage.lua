--- Token accounting of the current session, from usage_update and compaction updates:
--- the context in use against the model's window, the turn's and the session's tokens.
--- Pure bookkeeping and formatting; session.lua feeds it, status() shows it.
local updates = require('ink.protocol').updates
local M = {}

---@class ink.Usage
---@field contextTokens integer?
---@field contextWindow integer?
---@field inputTokens integer turn
---@field outputTokens integer turn
---@field cacheReadTokens integer turn
---@field sessionInputTokens integer
---@field sessionOutputTokens integer
---@field sessionCacheReadTokens integer
---@field compacting boolean
---@field compactions integer

---@return ink.Usage
local function empty()
  return {
    inputTokens = 0,
    outputTokens = 0,
    cacheReadTokens = 0,
    sessionInputTokens = 0,
    sessionOutputTokens = 0,
    sessionCacheReadTokens = 0,
    compacting = false,
    compactions = 0,
  }
end

---@type ink.Usage
M.current = empty()

--- Forget everything (a new session).
function M.reset()
  M.current = empty()
end

--- Folds one ink/session/update body in.
---@param u ink.SessionUpdate
function M.update(u)
  local c = M.current
  if u.sessionUpdate == updates.usage_update then
    for _, key in ipairs({ 'inputTokens', 'outputTokens', 'cacheReadTokens' }) do
      c[key] = type(u[key]) == 'number' and u[key] or 0
    end
    for _, key in ipairs({ 'sessionInputTokens', 'sessionOutputTokens', 'sessionCacheReadTokens', 'contextTokens', 'contextWindow' }) do
      if type(u[key]) == 'number' then
        c[key] = u[key]
      end
    end
  elseif u.sessionUpdate == updates.compaction then
    c.compacting = u.phase == 'start'
    if type(u.contextWindow) == 'number' then
      c.contextWindow = u.contextWindow
    end
    if u.phase == 'end' then
      c.compactions = c.compactions + 1
      c.contextTokens = type(u.tokensAfter) == 'number' and u.tokensAfter or c.contextTokens
    end
  end
end

--- 12345 → "12.3k", 999 → "999".
---@param n integer
---@return string
function M.short(n)
  if n < 1000 then
    return tostring(n)
  end
  local k = n / 1000
  if k >= 100 then
    return ('%dk'):format(math.floor(k + 0.5))
  end
  return (('%.1f'):format(k):gsub('%.0$', '')) .. 'k'
end

--- "3.1k/8.2k (38%)", "compacting…", or nil when the window is not known yet.
---@return string?
function M.context()
  local c = M.current
  if c.compacting then
    return 'compacting…'
  end
  if c.contextTokens and c.contextWindow and c.contextWindow > 0 then
    return ('%s/%s (%d%%)'):format(
      M.short(c.contextTokens),
      M.short(c.contextWindow),
      math.floor(100 * c.contextTokens / c.contextWindow + 0.5)
    )
  end
end

return M

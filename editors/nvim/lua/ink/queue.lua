-- The line shown while a prompt's model request waits for the endpoint's request limit
-- (`model_queue` updates, `model.maxConcurrentRequests`): one line per wait.
local M = {}

local waiting = false

--- The note to show for a `model_queue` update, or nil (the wait is already shown).
---@param u table
---@return string?
function M.line(u)
  if u.status ~= 'queued' then
    waiting = false
    return nil
  end
  if waiting then
    return nil
  end
  waiting = true
  return ('waiting for the model endpoint (%d ahead)'):format(tonumber(u.ahead) or 0)
end

return M

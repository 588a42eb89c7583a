--- :Ink rewind — pick a turn of the current session with vim.ui.select and restore the files
--- and conversation from just before it (ink/session/rewind). Open buffers follow through the
--- server's workspace/applyEdit; a conflict with unsaved text is asked about like an approval.
--- The files the rewind changed land in the quickfix list, one entry per changed hunk.
local client = require('ink.client')
local protocol = require('ink.protocol')
local session = require('ink.session')

local M = {}

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

--- "3. edit a.py — 2 files" (with a mark for entries a rewind cut off).
---@param c table a checkpoint entry
---@return string
function M.format(c)
  local first = (c.prompt or ''):match('[^\n]*') or ''
  local files = #(c.files or {})
  local what = c.noChanges and 'no changes' or ('%d file%s'):format(files, files == 1 and '' or 's')
  return ('%d. %s — %s%s'):format(c.turn, first, what, c.rewound and ' [rewound]' or '')
end

--- Quickfix items for the files a rewind changed: for a file still there, one item per hunk
--- between its text before the rewind (`old`) and now; for a deleted one, one item.
---@param root string the workspace
---@param files table[] the rewind's checkpoint files
---@param old table<string, string> file text before the rewind, by path
---@return table[]
function M.hunks(root, files, old)
  local items = {}
  for _, f in ipairs(files) do
    local path = root .. '/' .. f.path
    local now = vim.uv.fs_stat(path) and table.concat(vim.fn.readfile(path, 'b'), '\n') or nil
    if now == nil then
      items[#items + 1] = { filename = path, lnum = 1, text = 'deleted by the rewind' }
    else
      local before = old[f.path] or ''
      local found = false
      for _, h in ipairs(vim.diff(before, now, { result_type = 'indices' }) --[[@as integer[][] ]]) do
        found = true
        items[#items + 1] = {
          filename = path,
          lnum = math.max(h[3], 1),
          text = ('%s: -%d +%d lines'):format(f.status, h[2], h[4]),
        }
      end
      if not found then
        items[#items + 1] = { filename = path, lnum = 1, text = f.status .. ' (mode)' }
      end
    end
  end
  return items
end

local function read(path)
  if not vim.uv.fs_stat(path) then
    return nil
  end
  return table.concat(vim.fn.readfile(path, 'b'), '\n')
end

--- Rewinds the current session to before the picked turn.
---@param on_done? fun(err: table?, result: table?)
function M.rewind(on_done)
  on_done = on_done or function() end
  local sid = session.session_id
  if not sid then
    vim.notify('ink: no session yet: ask something first', vim.log.levels.INFO)
    return on_done({ message = 'no session' })
  end
  client.ensure(vim.api.nvim_get_current_buf(), function(c, err)
    if not c then
      vim.notify('ink: ' .. tostring(err), vim.log.levels.ERROR)
      return on_done({ message = tostring(err) })
    end
    c:request(protocol.methods.session_checkpoints, { sessionId = sid }, function(list_err, result)
      local items = not list_err and result and result.checkpoints or {}
      if list_err or #items == 0 then
        vim.notify('ink: ' .. (list_err and tostring(list_err.message) or 'no turns to rewind'), vim.log.levels.INFO)
        return on_done(list_err or { message = 'no turns' })
      end
      fire('InkRewindPick', { checkpoints = items })
      vim.ui.select(items, { prompt = 'Rewind to before', kind = 'ink.rewind', format_item = M.format }, function(choice)
        if not choice then
          return on_done({ message = 'nothing picked' })
        end
        local root = c.root_dir or vim.fn.getcwd()
        local old = {}
        for _, entry in ipairs(items) do
          if entry.turn >= choice.turn then
            for _, f in ipairs(entry.files or {}) do
              old[f.path] = old[f.path] or read(root .. '/' .. f.path)
            end
          end
        end
        c:request(protocol.methods.session_rewind, { sessionId = sid, turn = choice.turn }, function(rw_err, rw)
          if rw_err then
            vim.notify('ink: rewind failed: ' .. tostring(rw_err.message), vim.log.levels.WARN)
            return on_done(rw_err)
          end
          vim.schedule(function()
            vim.cmd.checktime() -- buffers not open in the server's view reload from disk
            local qf = M.hunks(root, rw.checkpoint.files or {}, old)
            vim.fn.setqflist({}, ' ', { title = 'Ink rewind to before ' .. choice.turn, items = qf })
            local kept = #(rw.kept or {}) > 0 and ('; kept yours: ' .. table.concat(rw.kept, ', ')) or ''
            vim.notify(('ink: rewound to before %d (:Ink rewind → %d undoes it)%s'):format(choice.turn, rw.checkpoint.turn, kept))
            fire('InkRewound', rw)
            on_done(nil, rw)
          end)
        end)
      end)
    end)
  end)
end

--- Quickfix items of `ink/session/changes` files: one per changed hunk (before → after).
---@param root string
---@param files table[]
---@return table[]
function M.change_items(root, files)
  local items = {}
  for _, f in ipairs(files) do
    local path = root .. '/' .. f.path
    if f.binary then
      items[#items + 1] = { filename = path, lnum = 1, text = f.status .. ' (binary)' }
    elseif f.after == nil or f.after == vim.NIL then
      items[#items + 1] = { filename = path, lnum = 1, text = 'deleted' }
    else
      local before = (f.before ~= vim.NIL and f.before) or ''
      local found = false
      for _, h in ipairs(vim.diff(before, f.after, { result_type = 'indices' }) --[[@as integer[][] ]]) do
        found = true
        items[#items + 1] = { filename = path, lnum = math.max(h[3], 1), text = ('%s: -%d +%d lines'):format(f.status, h[2], h[4]) }
      end
      if not found then
        items[#items + 1] = { filename = path, lnum = 1, text = f.status .. ' (mode)' }
      end
    end
  end
  return items
end

--- :Ink review — the whole session's changes (or one picked turn's) as a quickfix list of
--- hunks; :cnext walks them, `x`/`X` there revert a hunk/file, `:Ink rewind` takes all back.
---@param on_done? fun(err: table?, items: table[]?)
function M.review(on_done)
  on_done = on_done or function() end
  local sid = session.session_id
  if not sid then
    vim.notify('ink: no session yet: ask something first', vim.log.levels.INFO)
    return on_done({ message = 'no session' })
  end
  client.ensure(vim.api.nvim_get_current_buf(), function(c, err)
    if not c then
      return on_done({ message = tostring(err) })
    end
    c:request(protocol.methods.session_checkpoints, { sessionId = sid }, function(list_err, result)
      local choices = { { turn = nil, prompt = 'Whole session' } }
      for _, e in ipairs(not list_err and result and result.checkpoints or {}) do
        if not e.noChanges and not e.rewound then
          choices[#choices + 1] = e
        end
      end
      fire('InkReviewPick', { choices = choices })
      vim.ui.select(choices, {
        prompt = 'Review the changes of',
        kind = 'ink.review',
        format_item = function(e)
          return e.turn and M.format(e) or e.prompt
        end,
      }, function(choice)
        if not choice then
          return on_done({ message = 'nothing picked' })
        end
        c:request(protocol.methods.session_changes, { sessionId = sid, turn = choice.turn }, function(ch_err, changes)
          if ch_err then
            vim.notify('ink: ' .. tostring(ch_err.message), vim.log.levels.WARN)
            return on_done(ch_err)
          end
          vim.schedule(function()
            local title = choice.turn and ('Ink changes of turn ' .. choice.turn) or 'Ink session changes'
            -- one entry per hunk; keys there revert a hunk or a file (ink.hunks)
            local items = require('ink.hunks').open(c.root_dir or vim.fn.getcwd(), changes.files, title)
            fire('InkReviewed', { items = items })
            on_done(nil, items)
          end)
        end)
      end)
    end)
  end)
end

return M

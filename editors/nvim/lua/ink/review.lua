--- Review of workspace/applyEdit from ink-ls: shows current and proposed text side by side
--- with :diffthis, waits (the server request runs in a coroutine) for accept or reject, then
--- applies and writes on accept. The proposed side is editable: what the user leaves there is
--- what is applied, and the answer says so (`ink.edited`, with `ink.files` naming the files the
--- user changed: a rename is one review of several files; protocol.md "Edited proposals").
--- An edit the server marks pre-approved (`ink.approved`,
--- approval mode "auto") is applied and written at once, with no diff. The answer is always
--- the truth; it never talks to ink/*.
local edit = require('ink.edit')
local files = require('ink.files')

local M = {}

---@type ink.ReviewKeymaps
M.keymaps = { accept = 'ga', reject = 'gx' }

---@type ink.Review[]
local queue = {}
---@type ink.Review?
local active
local next_id = 0
--- the server's default approvalTimeoutSeconds
local DEFAULT_TIMEOUT = 600

--- Reads the current texts and computes the proposed ones.
---@param review ink.Review
---@param changes ink.FileChange[]
---@return string? err
local function prepare(review, changes)
  review.files = {}
  for _, change in ipairs(changes) do
    local current, b = files.current_text(change.path)
    local version = b and vim.lsp.util.buf_versions[b]
    if change.version and version and version > change.version then
      return ('%s changed after the edit was proposed (version %d, now %d)'):format(
        files.relpath(change.path),
        change.version,
        version
      )
    end
    local proposed, err = edit.propose(change, current, review.encoding)
    if not proposed then
      return ('cannot apply the edit to %s: %s'):format(files.relpath(change.path), err)
    end
    review.files[#review.files + 1] =
      { change = change, current = current, proposed = proposed, bufnr = b }
  end
end

---@param name string
---@param text string
---@param ft string?
---@return integer
local function scratch(name, text, ft)
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(b, 0, -1, true, (edit.to_lines(text)))
  vim.api.nvim_buf_set_name(b, name)
  vim.bo[b].buftype = 'nofile'
  vim.bo[b].bufhidden = 'wipe'
  vim.bo[b].swapfile = false
  vim.bo[b].modifiable = false
  if ft then
    vim.bo[b].filetype = ft
  end
  return b
end

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

---@param review ink.Review
local function close_ui(review)
  for _, tab in ipairs(review.tabs) do
    if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
      pcall(vim.cmd, 'silent! tabclose ' .. vim.api.nvim_tabpage_get_number(tab))
    end
  end
  for _, b in ipairs(review.bufs) do
    if vim.api.nvim_buf_is_valid(b) then
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
  if review.return_tab and vim.api.nvim_tabpage_is_valid(review.return_tab) then
    vim.api.nvim_set_current_tabpage(review.return_tab) -- back where the user was
  end
end

--- Records the user's decision and wakes the waiting handler (once).
---@param review ink.Review
---@param accept boolean
---@param reason? string
local function decide(review, accept, reason)
  if review.decided then
    return
  end
  review.decided = true
  if accept then
    M.take_user_versions(review)
  end
  close_ui(review)
  vim.schedule(function()
    coroutine.resume(review.co, { accept = accept, reason = reason })
  end)
end

---@param review ink.Review
---@param file ink.ReviewFile
local function show_file(review, file)
  local path = file.change.path
  local rel = files.relpath(path)
  local ft = vim.filetype.match({ filename = path })
  local tag = ('ink://review/%d/'):format(review.id)
  local left = scratch(tag .. 'current/' .. rel, file.current, ft)
  local right = scratch(tag .. 'proposed/' .. rel, file.proposed, ft)
  vim.bo[right].modifiable = true -- the user may change the proposal before accepting it
  file.right = right
  vim.list_extend(review.bufs, { left, right })

  vim.cmd('tabnew')
  local placeholder = vim.api.nvim_get_current_buf()
  review.tabs[#review.tabs + 1] = vim.api.nvim_get_current_tabpage()
  vim.api.nvim_win_set_buf(0, left)
  pcall(vim.api.nvim_buf_delete, placeholder, { force = true })
  vim.cmd('diffthis')
  local keys = {}
  if M.keymaps.accept then
    keys[#keys + 1] = M.keymaps.accept .. ' accept'
  end
  if M.keymaps.reject then
    keys[#keys + 1] = M.keymaps.reject .. ' reject'
  end
  keys[#keys + 1] = ':InkAccept / :InkReject'
  local added, removed = edit.line_stats(file.current, file.proposed)
  local function bar(s)
    return (s:gsub('%%', '%%%%'))
  end
  vim.wo.winbar = bar(('Ink · %s%s (current)'):format(rel, file.change.create and ' [new]' or ''))
  vim.cmd('rightbelow vsplit')
  vim.api.nvim_win_set_buf(0, right)
  vim.cmd('diffthis')
  vim.wo.winbar = bar(
    ('Ink · proposed: +%d −%d · %s'):format(added, removed, table.concat(keys, ' · '))
  )

  for _, b in ipairs({ left, right }) do
    local function map(lhs, accept)
      if lhs then
        vim.keymap.set('n', lhs, function()
          decide(review, accept, not accept and 'the user rejected the edit' or nil)
        end, { buffer = b, nowait = true, desc = accept and 'Ink: accept edit' or 'Ink: reject edit' })
      end
    end
    map(M.keymaps.accept, true)
    map(M.keymaps.reject, false)
    vim.api.nvim_create_autocmd('BufWipeout', {
      buffer = b,
      once = true,
      callback = function()
        -- deferred: this runs inside the :tabclose/:quit that wipes the buffer
        vim.schedule(function()
          decide(review, false, 'the user closed the review without accepting the edit')
        end)
      end,
    })
  end
end

--- Reads what the user left in each proposed buffer: a changed one becomes the text to apply
--- (`file.edited`); the proposal's final newline (or its absence) is kept.
---@param review ink.Review
function M.take_user_versions(review)
  for _, file in ipairs(review.files) do
    if file.right and vim.api.nvim_buf_is_valid(file.right) then
      local _, eol = edit.to_lines(file.proposed)
      local text = edit.from_lines(vim.api.nvim_buf_get_lines(file.right, 0, -1, true), eol)
      if text ~= file.proposed then
        file.proposed, file.edited = text, true
      end
    end
  end
end

---@param review ink.Review
local function show(review)
  active = review
  review.return_tab = vim.api.nvim_get_current_tabpage()
  local err = prepare(review, review.changes)
  if err then
    decide(review, false, err)
    return
  end
  for _, file in ipairs(review.files) do
    show_file(review, file)
  end
  vim.api.nvim_echo({ { review.label .. ': review the diff, then accept or reject', 'WarningMsg' } }, true, {})
  local data = {
    id = review.id,
    label = review.label,
    toolCallId = review.call_id,
    files = vim.tbl_map(function(f)
      return { path = f.change.path, current = f.current, proposed = f.proposed }
    end, review.files),
  }
  require('ink.chat').review_opened(data) -- the chat answers it in place too
  fire('InkReviewOpen', data)
end

local function show_next()
  if active then
    return
  end
  local review = table.remove(queue, 1)
  if review then
    show(review)
  end
end

--- True when the server marked the edit as approved already (protocol.md, Approvals: `auto`).
---@param params table?
---@return boolean
function M.pre_approved(params)
  return type(params) == 'table' and type(params.ink) == 'table' and params.ink.approved == true
end

--- A new review of the edit in `params` (nil and the reason when the edit is malformed).
---@param params { label?: string, edit: table }
---@param ctx lsp.HandlerContext
---@param co thread
---@param decided boolean
---@return ink.Review?, string?
local function new_review(params, ctx, co, decided)
  local changes, err = edit.normalize(params and params.edit)
  if not changes then
    return nil, err
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  next_id = next_id + 1
  ---@type ink.Review
  return {
    id = next_id,
    label = params.label or 'ink: edit',
    call_id = require('ink.calls').id_of_label(params.label),
    client_id = ctx.client_id,
    encoding = client and client.offset_encoding or 'utf-16',
    changes = changes,
    files = {},
    co = co,
    bufs = {},
    tabs = {},
    decided = decided,
  }
end

--- Applies a pre-approved edit without review: buffer first (one undo step), then write.
---@param params { label?: string, edit: table }
---@param ctx lsp.HandlerContext
---@return ink.ApplyResult
local function apply_approved(params, ctx)
  local review, err = new_review(params, ctx, coroutine.running(), true)
  if not review then
    return { applied = false, failureReason = err }
  end
  local ok, apply_err = false, prepare(review, review.changes)
  if not apply_err then
    local called
    called, ok, apply_err = pcall(files.apply, review.files, review.encoding)
    if not called then
      ok, apply_err = false, 'applying the edit failed: ' .. tostring(ok)
    end
  end
  ---@type ink.ApplyResult
  local result = { applied = ok }
  if not ok then
    result.failureReason = apply_err or 'the edit could not be applied'
  end
  fire('InkEditApplied', {
    id = review.id,
    label = review.label,
    applied = result.applied,
    failureReason = result.failureReason,
  })
  return result
end

--- Handler for workspace/applyEdit from ink-ls (runs in the request's coroutine).
---@param params { label?: string, edit: table, ink?: { approved?: boolean } }
---@param ctx lsp.HandlerContext
---@return ink.ApplyResult
function M.handler(_, params, ctx)
  if M.pre_approved(params) then
    return apply_approved(params, ctx)
  end
  local co, is_main = coroutine.running()
  if not co or is_main then
    return { applied = false, failureReason = 'the editor could not show the edit for review' }
  end
  local review, err = new_review(params, ctx, co, false)
  if not review then
    return { applied = false, failureReason = err }
  end
  queue[#queue + 1] = review
  -- the server stops waiting after approvalTimeoutSeconds (and then tells the model the
  -- edit was blocked); a later accept must not write a file the model thinks unchanged
  local timeout = require('ink.config').options.approval_timeout or DEFAULT_TIMEOUT
  local timer = vim.defer_fn(function()
    decide(review, false, ('no decision within %gs'):format(timeout))
  end, math.floor(timeout * 1000))
  show_next()
  local decision = coroutine.yield() --[[@as ink.Decision]]
  for i, r in ipairs(queue) do
    if r == review then -- decided while waiting in line (time up): never show it
      table.remove(queue, i)
      break
    end
  end
  if not timer:is_closing() then -- defer_fn closes it itself once it fired
    timer:stop()
    timer:close()
  end
  local ok, apply_err = false, decision.reason
  if decision.accept and #review.files == 0 then -- accepted from the chat before it was shown
    apply_err = prepare(review, review.changes)
  end
  if decision.accept and not apply_err then
    local called
    called, ok, apply_err = pcall(files.apply, review.files, review.encoding)
    if not called then -- an error must not leave this review "active" forever
      ok, apply_err = false, 'applying the edit failed: ' .. tostring(ok)
    end
  end
  if active == review then
    active = nil
  end
  ---@type ink.ApplyResult
  local result = { applied = ok }
  if not ok then
    result.failureReason = apply_err or 'the user rejected the edit'
  else
    local edited = {}
    for _, f in ipairs(review.files) do
      if f.edited then
        edited[#edited + 1] = f.change.uri
      end
    end
    if #edited > 0 then -- the user's version of these files landed, not the proposal
      result.ink = { edited = true, files = edited }
    end
  end
  local closed = {
    id = review.id,
    label = review.label,
    toolCallId = review.call_id,
    accepted = decision.accept,
    applied = result.applied,
    edited = result.ink ~= nil,
    failureReason = result.failureReason,
  }
  require('ink.chat').review_closed(closed)
  fire('InkReviewClose', closed)
  vim.schedule(show_next)
  return result
end

--- The review on screen, if any.
---@return ink.Review?
function M.active()
  return active
end

--- Accepts the review on screen. Returns false when none is waiting.
---@return boolean
function M.accept()
  if not active or active.decided then
    return false
  end
  decide(active, true)
  return true
end

--- Rejects the review on screen; `reason` goes to the model. Returns false when none waits.
---@param reason? string
---@return boolean
function M.reject(reason)
  if not active or active.decided then
    return false
  end
  decide(active, false, reason and reason ~= '' and ('the user rejected the edit: ' .. reason) or 'the user rejected the edit')
  return true
end

---@param call_id string
---@return ink.Review?
local function review_of(call_id)
  if active and active.call_id == call_id and not active.decided then
    return active
  end
  for _, r in ipairs(queue) do
    if r.call_id == call_id and not r.decided then
      return r
    end
  end
end

--- Accepts or rejects the review of a tool call (from the chat), shown or still in line.
--- Its diff closes as if it had been answered there. Returns false when none waits.
---@param call_id string
---@param accept boolean
---@param reason? string
---@return boolean
function M.decide_call(call_id, accept, reason)
  local r = review_of(call_id)
  if not r then
    return false
  end
  decide(r, accept, not accept and (reason or 'the user rejected the edit') or nil)
  return true
end

--- Goes to the diff of a tool call's review (the tab page it is shown in).
---@param call_id string
---@return boolean shown
function M.focus_call(call_id)
  local r = review_of(call_id)
  local tab = r and r.tabs[1]
  if tab and vim.api.nvim_tabpage_is_valid(tab) then
    vim.api.nvim_set_current_tabpage(tab)
    return true
  end
  return false
end

--- Rejects every pending review of a client (its turn ended or it stopped).
---@param client_id integer
---@param reason string
function M.abandon(client_id, reason)
  for i = #queue, 1, -1 do
    if queue[i].client_id == client_id then
      local r = table.remove(queue, i)
      decide(r, false, reason)
    end
  end
  if active and active.client_id == client_id then
    decide(active, false, reason)
  end
end

return M

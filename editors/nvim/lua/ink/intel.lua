--- The editor's language servers for ink-ls (experimental.ink.languageFeatures): answers the
--- server's ink/languageFeatures request by asking the other vim.lsp clients attached to the
--- document (loaded without being shown when it is not), merging their answers without
--- duplicates, positions converted between ink-ls's encoding and each server's.
local M = {}

M.ATTACH_WAIT = 1500 -- ms a just-loaded buffer may take for its servers to attach
M.INIT_WAIT = 15000 -- ms an attached server may take to finish initialize
M.REQUEST_WAIT = 25000 -- ms for the servers' answers (ink-ls waits 30 s)

local METHODS = {
  definition = 'textDocument/definition',
  references = 'textDocument/references',
  implementation = 'textDocument/implementation',
  hover = 'textDocument/hover',
  documentSymbols = 'textDocument/documentSymbol',
  workspaceSymbols = 'workspace/symbol',
  incomingCalls = 'textDocument/prepareCallHierarchy',
  outgoingCalls = 'textDocument/prepareCallHierarchy',
  rename = 'textDocument/rename',
}
local CALLS = { incomingCalls = 'callHierarchy/incomingCalls', outgoingCalls = 'callHierarchy/outgoingCalls' }

--- Suspends the running coroutine for `ms` milliseconds (the editor keeps running).
local function sleep(ms)
  local co = coroutine.running()
  vim.defer_fn(function()
    coroutine.resume(co)
  end, ms)
  coroutine.yield()
end

--- The language servers (not ink) attached to `b` that offer `method`, once initialized;
--- waits a bounded time for a just-loaded buffer's servers to attach and start.
---@param b integer
---@param method string
---@param loaded_now boolean
---@return vim.lsp.Client[]
local function servers(b, method, loaded_now)
  local ink = require('ink.client').NAME
  local attach_deadline = vim.uv.now() + (loaded_now and M.ATTACH_WAIT or 0)
  local init_deadline = vim.uv.now() + M.INIT_WAIT
  while true do
    local others = vim.tbl_filter(function(c)
      return c.name ~= ink and not c:is_stopped()
    end, vim.lsp.get_clients({ bufnr = b }))
    local starting = vim.tbl_filter(function(c)
      return not c.initialized
    end, others)
    local now = vim.uv.now()
    if (#others > 0 and #starting == 0) or (#others == 0 and now > attach_deadline) or now > init_deadline then
      return vim.tbl_filter(function(c)
        return c.initialized and c:supports_method(method, b)
      end, others)
    end
    sleep(20)
  end
end

--- Converts positions of one text between encodings (by line, reading each line once).
---@param lines fun(): string[]
---@param from string
---@param to string
local function converter(lines, from, to)
  ---@param pos lsp.Position
  return function(pos)
    if from == to or type(pos) ~= 'table' then
      return pos
    end
    local line = lines()[pos.line + 1] or ''
    local byte = vim.str_byteindex(line, from, math.min(pos.character, vim.str_utfindex(line, from)), false)
    return { line = pos.line, character = vim.str_utfindex(line, to, byte, false) }
  end
end

--- The text of a file as lines: its loaded buffer, else the file on disk (read once).
---@param uri string
local function lines_of(uri)
  local cached
  return function()
    if not cached then
      local b = vim.uri_to_bufnr(uri)
      if vim.api.nvim_buf_is_loaded(b) then
        cached = vim.api.nvim_buf_get_lines(b, 0, -1, false)
      else
        local ok, read = pcall(vim.fn.readfile, vim.uri_to_fname(uri))
        cached = ok and read or {}
      end
    end
    return cached
  end
end

--- A function converting ranges of `uri` from one encoding to another.
local function ranges(from, to)
  local per_uri = {}
  return function(uri, range)
    if from == to or type(range) ~= 'table' then
      return range
    end
    per_uri[uri] = per_uri[uri] or converter(lines_of(uri), from, to)
    local conv = per_uri[uri]
    return { start = conv(range.start), ['end'] = conv(range['end']) }
  end
end

--- Rewrites every range of one server's result into ink-ls's encoding.
---@param op string
---@param result any
---@param uri string the asked document
---@param r fun(uri: string, range: lsp.Range): lsp.Range
local function remap(op, result, uri, r)
  local function item(i) -- a CallHierarchyItem
    i.range, i.selectionRange = r(i.uri, i.range), r(i.uri, i.selectionRange)
    return i
  end
  local function symbol(s, doc)
    if s.location then
      s.location.range = s.location.range and r(s.location.uri, s.location.range)
    else
      s.range, s.selectionRange = r(doc, s.range), r(doc, s.selectionRange)
      for _, child in ipairs(s.children or {}) do
        symbol(child, doc)
      end
    end
  end
  local function edits(target, list)
    for _, e in ipairs(list or {}) do
      e.range = r(target, e.range)
    end
  end
  if op == 'rename' then
    for target, list in pairs(result.changes or {}) do
      edits(target, list)
    end
    for _, change in ipairs(result.documentChanges or {}) do
      if change.textDocument then
        edits(change.textDocument.uri, change.edits)
      end
    end
    return result
  end
  for _, x in ipairs(result) do
    if x.targetUri then -- LocationLink
      x.targetRange, x.targetSelectionRange = r(x.targetUri, x.targetRange), r(x.targetUri, x.targetSelectionRange)
      x.originSelectionRange = x.originSelectionRange and r(uri, x.originSelectionRange)
    elseif x.uri and x.range then -- Location
      x.range = r(x.uri, x.range)
    elseif op == 'hover' then
      x.range = x.range and r(uri, x.range)
    elseif op == 'documentSymbols' or op == 'workspaceSymbols' then
      symbol(x, uri)
    elseif x.from then -- CallHierarchyIncomingCall: its ranges are in the caller's file
      item(x.from)
      for k, fr in ipairs(x.fromRanges or {}) do
        x.fromRanges[k] = r(x.from.uri, fr)
      end
    elseif x.to then -- CallHierarchyOutgoingCall: its ranges are in the asked item's file
      item(x.to)
      for k, fr in ipairs(x.fromRanges or {}) do
        x.fromRanges[k] = r(x.caller, fr)
      end
      x.caller = nil
    end
  end
  return result
end

--- Sends one request to each client and waits for all answers (bounded); returns
--- `{client, result}` pairs of the servers that answered without error, and the errors.
---@param clients vim.lsp.Client[]
---@param method string
---@param params_for fun(c: vim.lsp.Client): table
---@param b integer
local function ask_all(clients, method, params_for, b)
  local co = coroutine.running()
  local answers, errors, pending, ids = {}, {}, #clients, {}
  local waiting = true
  for _, c in ipairs(clients) do
    local ok, id = c:request(method, params_for(c), function(err, result)
      if err then
        errors[#errors + 1] = ('%s: %s'):format(c.name, err.message or vim.inspect(err))
      elseif result ~= nil and result ~= vim.NIL then
        answers[#answers + 1] = { client = c, result = result }
      end
      ids[c.id] = nil
      pending = pending - 1
      if pending == 0 and waiting then
        waiting = false
        vim.schedule(function()
          coroutine.resume(co)
        end)
      end
    end, b)
    if ok then
      ids[c.id] = id
    else
      pending = pending - 1
      errors[#errors + 1] = c.name .. ': the request could not be sent'
    end
  end
  if pending > 0 then
    vim.defer_fn(function()
      if waiting then
        waiting = false
        coroutine.resume(co)
      end
    end, M.REQUEST_WAIT)
    coroutine.yield()
  end
  for _, c in ipairs(clients) do
    if ids[c.id] then
      c:cancel_request(ids[c.id])
      errors[#errors + 1] = ('%s did not answer %s within %d ms'):format(c.name, method, M.REQUEST_WAIT)
    end
  end
  table.sort(answers, function(x, y)
    return x.client.id < y.client.id
  end)
  return answers, errors
end

--- The two steps of a call hierarchy question, per client: prepare, then the calls of each
--- item (outgoing calls remember their caller's file for the ranges).
local function call_hierarchy(op, prepared, b)
  local out, errors = {}, {}
  for _, a in ipairs(prepared) do
    for _, it in ipairs(a.result) do
      local got, errs = ask_all({ a.client }, CALLS[op], function()
        return { item = it }
      end, b)
      vim.list_extend(errors, errs)
      for _, g in ipairs(got) do
        for _, call in ipairs(g.result) do
          call.caller = op == 'outgoingCalls' and it.uri or nil
        end
        out[#out + 1] = { client = a.client, result = g.result }
      end
    end
  end
  return out, errors
end

--- Lets users (and tests) see which servers answer what (User InkLanguageFeatures).
---@param op string
---@param clients vim.lsp.Client[]
local function told(op, clients)
  local names = vim.tbl_map(function(c)
    return c.name
  end, clients)
  vim.api.nvim_exec_autocmds('User', {
    pattern = 'InkLanguageFeatures',
    modeline = false,
    data = { operation = op, available = #clients > 0, servers = names },
  })
end

--- Answers one ink/languageFeatures request (runs in the request's coroutine).
---@param params ink.LanguageFeaturesParams
---@param ctx lsp.HandlerContext
function M.answer(params, ctx)
  local op, uri = params.operation, params.textDocument.uri
  local method = METHODS[op]
  if not method then
    return nil, { code = -32602, message = 'unknown operation ' .. tostring(op) }
  end
  local was_loaded = vim.fn.bufnr(vim.uri_to_fname(uri)) ~= -1
    and vim.api.nvim_buf_is_loaded(vim.fn.bufnr(vim.uri_to_fname(uri)))
  local b = require('ink.diagnostics').buffer(uri, true)
  if not b or not vim.api.nvim_buf_is_loaded(b) then
    return { available = false }
  end
  local ink_client = vim.lsp.get_client_by_id(ctx.client_id)
  if ink_client and not was_loaded then -- ink-ls keeps the buffer in step (a rename edits it)
    require('ink.client').attach(ink_client, b)
  end
  local clients = servers(b, method, not was_loaded)
  told(op, clients)
  if #clients == 0 then
    return { available = false }
  end
  local ink_enc = ink_client and ink_client.offset_encoding or 'utf-16'
  local here = lines_of(uri)
  local answers, errors = ask_all(clients, method, function(c)
    local p = { textDocument = { uri = uri } }
    if params.position then
      p.position = converter(here, ink_enc, c.offset_encoding)(params.position)
    end
    if op == 'references' then
      p.context = { includeDeclaration = true }
    elseif op == 'workspaceSymbols' then
      p = { query = params.query or '' }
    elseif op == 'rename' then
      p.newName = params.newName
    end
    return p
  end, b)
  if CALLS[op] then
    local more
    answers, more = call_hierarchy(op, answers, b)
    vim.list_extend(errors, more)
  end
  if #answers == 0 and #errors > 0 then
    return nil, { code = -32603, message = table.concat(errors, '; ') }
  end
  return { available = true, result = M.merge(op, answers, uri, ink_enc) }
end

--- Every server's result in ink-ls's encoding, merged without duplicates (a rename: the
--- first server's edit, as two servers' edits of the same names would apply twice).
---@param op string
---@param answers { client: vim.lsp.Client, result: any }[]
---@param uri string
---@param ink_enc string
function M.merge(op, answers, uri, ink_enc)
  if op == 'rename' then
    local first = answers[1]
    return first and remap(op, first.result, uri, ranges(first.client.offset_encoding, ink_enc)) or vim.NIL
  end
  local merged, seen = {}, {}
  for _, a in ipairs(answers) do
    local list = vim.islist(a.result) and a.result or { a.result }
    for _, x in ipairs(remap(op, list, uri, ranges(a.client.offset_encoding, ink_enc))) do
      local key = vim.inspect(x)
      if not seen[key] then
        seen[key] = true
        merged[#merged + 1] = x
      end
    end
  end
  return merged
end

--- Handler of ink/languageFeatures.
---@param params ink.LanguageFeaturesParams
---@param ctx lsp.HandlerContext
function M.handler(_, params, ctx)
  local co, is_main = coroutine.running()
  if not co or is_main then -- the answer needs waiting: only in the request's coroutine
    return { available = false }
  end
  local ok, result, err = pcall(M.answer, params, ctx)
  if not ok then
    return nil, { code = -32603, message = tostring(result) }
  end
  return result, err
end

return M

--- The editor's diagnostics for ink-ls (experimental.ink.diagnostics): answers the server's
--- ink/diagnostics request with vim.diagnostic.get() of every source, and tells it when a
--- file's diagnostics change (DiagnosticChanged → ink/diagnosticsChanged).
local protocol = require('ink.protocol')

local M = {}

--- LSP severity of a vim.diagnostic severity (they share the numbers 1-4).
---@param d vim.Diagnostic
---@return table LSP Diagnostic
local function to_lsp(d)
  local lsp = vim.tbl_get(d, 'user_data', 'lsp')
  if type(lsp) == 'table' and type(lsp.range) == 'table' then
    return {
      range = lsp.range,
      severity = lsp.severity or d.severity,
      code = lsp.code,
      source = lsp.source or d.source,
      message = lsp.message or d.message,
    }
  end
  return {
    range = {
      start = { line = d.lnum, character = d.col },
      ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    },
    severity = d.severity,
    code = d.code,
    source = d.source,
    message = d.message,
  }
end

--- Whether something other than ink reports diagnostics for the buffer.
---@param b integer
local function watched(b)
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = b })) do
    if c.name ~= require('ink.client').NAME then
      return true
    end
  end
  return #vim.diagnostic.get(b) > 0
end

--- The buffer of a file URI; with `load`, loaded (so its language servers attach) when the
--- file exists, else only an existing loaded one.
---@param uri string
---@param load boolean
---@return integer?
local function buffer(uri, load)
  local ok, path = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  local existing = vim.fn.bufnr(path)
  if not load then
    return existing ~= -1 and vim.api.nvim_buf_is_loaded(existing) and existing or nil
  end
  local b = existing ~= -1 and existing or vim.uri_to_bufnr(uri)
  if not vim.api.nvim_buf_is_loaded(b) then
    if not vim.uv.fs_stat(path) then
      return b
    end
    vim.bo[b].buflisted = true
    vim.fn.bufload(b)
    -- bufload does not run the filetype detection that attaches language servers
    vim.api.nvim_buf_call(b, function()
      vim.cmd('filetype detect')
    end)
  end
  return b
end

M.buffer = buffer

---@param uri string
---@param b integer?
local function item(uri, b)
  if not b or not vim.api.nvim_buf_is_valid(b) then
    return { uri = uri, diagnostics = {}, watched = false }
  end
  return {
    uri = uri,
    version = vim.b[b].changedtick,
    diagnostics = vim.tbl_map(to_lsp, vim.diagnostic.get(b)),
    watched = watched(b),
  }
end

--- Handler of ink/diagnostics: `{uris, load}` (uris null: every buffer with diagnostics).
function M.handler(_, params)
  local items = {}
  local uris = params and params.uris
  if type(uris) == 'table' then
    for _, uri in ipairs(uris) do
      items[#items + 1] = item(uri, buffer(uri, params.load == true))
    end
  else
    local seen = {}
    for _, d in ipairs(vim.diagnostic.get()) do
      if not seen[d.bufnr] and vim.api.nvim_buf_is_valid(d.bufnr) and vim.api.nvim_buf_get_name(d.bufnr) ~= '' then
        seen[d.bufnr] = true
        items[#items + 1] = item(vim.uri_from_bufnr(d.bufnr), d.bufnr)
      end
    end
  end
  return { items = items }
end

--- Tells the running ink-ls that a buffer's diagnostics changed.
---@param b integer
function M.changed(b)
  local client = require('ink.client').get()
  if not client or not client.initialized or vim.api.nvim_buf_get_name(b) == '' then
    return
  end
  client:notify(protocol.methods.diagnostics_changed, { uris = { vim.uri_from_bufnr(b) } })
end

return M

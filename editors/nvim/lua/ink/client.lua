--- The ink-ls LSP client: its default vim.lsp config and starting/finding the client on
--- demand. Handlers live in their own modules; this one only wires them.
local M = {}

M.NAME = 'ink'

--- The defaults returned by lsp/ink.lua (merged by vim.lsp.config with the user's config).
---@return vim.lsp.Config
function M.defaults()
  local methods = require('ink.protocol')
  return {
    name = M.NAME,
    cmd = { 'ink-ls', '--stdio' },
    -- one root rule for vim.lsp.enable() and :InkAsk, so both reuse one client
    root_dir = function(bufnr, on_dir)
      on_dir(M.root(bufnr))
    end,
    capabilities = {
      experimental = { ink = { reviewsApplyEdit = true, diagnostics = true, languageFeatures = true } },
    },
    handlers = {
      [methods.lsp.apply_edit] = function(...)
        return require('ink.review').handler(...)
      end,
      [methods.lsp.show_message_request] = function(...)
        return require('ink.approval').handler(...)
      end,
      [methods.methods.session_update] = function(...)
        return require('ink.session').on_update(...)
      end,
      [methods.methods.diagnostics] = function(...)
        return require('ink.diagnostics').handler(...)
      end,
      [methods.methods.language_features] = function(...)
        return require('ink.intel').handler(...)
      end,
    },
    on_exit = function(code, signal, client_id)
      vim.schedule(function()
        require('ink.session').on_exit(client_id, code, signal)
      end)
    end,
  }
end

--- The workspace root for a buffer: its git root, else the current directory.
---@param bufnr integer
---@return string
function M.root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  return (name ~= '' and vim.fs.root(bufnr, { '.git' })) or vim.fn.getcwd()
end

--- The running ink-ls client, if any.
---@return vim.lsp.Client?
function M.get()
  return vim.lsp.get_clients({ name = M.NAME })[1]
end

---@param b integer
local function is_file_buffer(b)
  return vim.api.nvim_buf_is_valid(b) and vim.bo[b].buftype == '' and vim.api.nvim_buf_get_name(b) ~= ''
end
M.is_file_buffer = is_file_buffer

--- Polls until the client finished `initialize` (requests before it would be refused).
---@param client vim.lsp.Client
---@param cb fun(client: vim.lsp.Client?, err: string?)
local function when_ready(client, cb)
  local deadline = vim.uv.now() + 30000
  local function check()
    if client:is_stopped() then
      cb(nil, 'ink-ls exited during start-up (see :InkLog server)')
    elseif client.initialized then
      cb(client)
    elseif vim.uv.now() > deadline then
      cb(nil, 'ink-ls did not finish initialize within 30 s')
    else
      vim.defer_fn(check, 20)
    end
  end
  check()
end

--- Attaches the client to a file buffer (so the server reads its unsaved text).
---@param client vim.lsp.Client
---@param b integer
function M.attach(client, b)
  if vim.api.nvim_buf_is_loaded(b) and is_file_buffer(b) and not client.attached_buffers[b] then
    vim.lsp.buf_attach_client(b, client.id)
  end
end

--- Finds or starts the client, attaches it to `bufnr` when that is a file buffer (so the
--- server reads unsaved text), then calls `cb` once it is initialized.
---@param bufnr integer
---@param cb fun(client: vim.lsp.Client?, err: string?)
function M.ensure(bufnr, cb)
  local client = M.get()
  if client then
    M.attach(client, bufnr)
    return when_ready(client, cb)
  end
  local config = vim.lsp.config[M.NAME]
  if not config then
    return cb(nil, 'no vim.lsp config named "ink" (is editors/nvim on the runtimepath?)')
  end
  config = vim.deepcopy(config)
  local exe = config.cmd and config.cmd[1]
  if type(exe) == 'string' and vim.fn.executable(exe) ~= 1 then
    return cb(nil, ('ink-ls not found: %q is not executable (set cmd in setup())'):format(exe))
  end
  local function start(root)
    config.root_dir = root
    local id = vim.lsp.start(config, { bufnr = bufnr, attach = is_file_buffer(bufnr) })
    local started = id and vim.lsp.get_client_by_id(id)
    if not started then
      return cb(nil, 'could not start ink-ls (see :InkLog server)')
    end
    -- every open file, not only the one asked from: the agent may read any of them
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      M.attach(started, b)
    end
    when_ready(started, cb)
  end
  if type(config.root_dir) == 'function' then
    config.root_dir(bufnr, function(root)
      vim.schedule(function()
        start(root or M.root(bufnr))
      end)
    end)
  else
    start(config.root_dir or M.root(bufnr))
  end
end

return M

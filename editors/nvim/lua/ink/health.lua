--- :checkhealth ink — Neovim version, the ink-ls command, its version, the model endpoint,
--- the MCP servers (ink/mcp/status of the running server).
--- Read-only checks; it never starts a session or prints the API key.
local M = {}

local health = vim.health

---@return string[]?
local function server_cmd()
  local cfg = vim.lsp.config.ink
  local cmd = cfg and cfg.cmd
  if type(cmd) == 'table' and type(cmd[1]) == 'string' then
    return cmd
  end
end

---@param cmd string[]
local function check_server(cmd)
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    health.error(('server command not found: %q'):format(cmd[1]), {
      'Install ink-ls (pip install ink-ls) or set cmd in require("ink").setup({ cmd = {...} })',
    })
    return
  end
  health.ok(('server command found: %s'):format(table.concat(cmd, ' ')))
  local running = require('ink.client').get()
  local caps = running and running.server_capabilities
  local announced = caps and vim.tbl_get(caps, 'experimental', 'ink', 'version')
  if announced then
    health.ok(('ink-ls is running, protocol %s (the plugin speaks %s)'):format(
      announced,
      require('ink.protocol').VERSION
    ))
    return
  end
  local args = vim.tbl_filter(function(a)
    return a ~= '--stdio'
  end, cmd)
  args[#args + 1] = '--version'
  local ok, res = pcall(function()
    return vim.system(args, { text = true }):wait(10000)
  end)
  if ok and res.code == 0 then
    health.ok('version: ' .. vim.trim(res.stdout or ''))
  else
    health.warn(('`%s` failed: %s'):format(table.concat(args, ' '), ok and vim.trim(res.stderr or '') or tostring(res)))
  end
end

-- The server's own default (DEFAULT_BASE_URL in ink_ls/core/config.py: a local Ollama);
-- tests/editors/test_nvim_help_health.py checks that the two agree.
M.DEFAULT_BASE_URL = 'http://localhost:11434/v1'

---@param model table
local function check_endpoint(model)
  local base = model.baseUrl or os.getenv('INK_BASE_URL') or os.getenv('OPENAI_BASE_URL')
  if not base then
    health.info('model.baseUrl not set: ink-ls uses ' .. M.DEFAULT_BASE_URL)
    base = M.DEFAULT_BASE_URL
  end
  if vim.fn.executable('curl') ~= 1 then
    health.warn('curl not found: cannot check that ' .. base .. ' is reachable')
    return
  end
  -- the server's order: the named variable, then INK_API_KEY, then OPENAI_API_KEY
  local key = model.apiKey
    or (model.apiKeyEnv and os.getenv(model.apiKeyEnv))
    or os.getenv('INK_API_KEY')
    or os.getenv('OPENAI_API_KEY')
  -- the key goes through curl's stdin config, never on its command line
  local conf = key and ('header = "Authorization: Bearer %s"\n'):format(key) or ''
  local url = base:gsub('/+$', '') .. '/models'
  local res = vim
    .system({ 'curl', '-sS', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '5', '-K', '-', url }, {
      stdin = conf,
      text = true,
    })
    :wait(8000)
  local status = tonumber(res.stdout or '')
  if res.code ~= 0 or not status or status == 0 then
    health.error(('model endpoint %s is not reachable: %s'):format(base, vim.trim(res.stderr or '')))
  elseif status == 401 or status == 403 then
    health.warn(('model endpoint %s is reachable but refused the API key (HTTP %d)'):format(base, status))
  elseif status >= 400 then
    health.warn(('model endpoint %s is reachable, GET /models answered HTTP %d'):format(base, status))
  else
    health.ok(('model endpoint %s is reachable (HTTP %d)'):format(base, status))
  end
end

--- The running server's MCP servers: connected (tool count), failed (reason), not started.
local function check_mcp()
  local running = require('ink.client').get()
  if not running then
    health.info('MCP servers: ink-ls is not running here; `ink-ls mcp list` shows them')
    return
  end
  local method = require('ink.protocol').methods.mcp_status
  local res, err = running:request_sync(method, vim.empty_dict(), 60000)
  if not res or res.err then
    health.warn(('%s failed: %s'):format(method, vim.inspect(err or (res and res.err))))
    return
  end
  local status = res.result or {}
  for _, problem in ipairs(status.problems or {}) do
    health.warn('MCP configuration: ' .. problem)
  end
  if #(status.servers or {}) == 0 then
    health.info('MCP servers: none configured (.mcp.json, $XDG_CONFIG_HOME/ink-ls/mcp.json)')
  end
  for _, s in ipairs(status.servers or {}) do
    local name = ('MCP server %s (%s, %s)'):format(s.name, s.origin, s.transport)
    if s.state == 'connected' then
      health.ok(('%s: connected, %d tools'):format(name, #(s.tools or {})))
    elseif s.state == 'failed' then
      health.error(('%s: failed: %s'):format(name, s.error or 'unknown error'))
    else
      health.warn(('%s: %s%s'):format(name, s.state, s.error and (': ' .. s.error) or ''))
    end
    for _, skipped in ipairs(s.skipped or {}) do
      health.warn(('%s: tool left out: %s'):format(name, skipped))
    end
  end
end

function M.check()
  health.start('ink')
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim 0.11 or newer is required')
  end
  local cmd = server_cmd()
  if not cmd then
    health.error('no vim.lsp config "ink" with a cmd list (is editors/nvim on the runtimepath?)')
  else
    check_server(cmd)
  end
  local cfg = vim.lsp.config.ink or {}
  local settings = vim.tbl_get(cfg, 'init_options', 'ink') or {}
  check_endpoint(settings.model or {})
  local approval = settings.approval or 'ask'
  health.info('approval mode: ' .. approval)
  local model = settings.model or {}
  health.info(
    'context window: '
      .. (model.contextWindow and (tostring(model.contextWindow) .. ' tokens (model.contextWindow)') or 'the window the server runs (Ollama, llama.cpp, LM Studio, /models), else 32768 tokens')
  )
  health.info(('compaction: at %d%% of the window (model.compactThreshold)'):format(math.floor(100 * (model.compactThreshold or 0.8) + 0.5)))
  check_mcp()
end

return M

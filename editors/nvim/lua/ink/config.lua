--- Options of the plugin: defaults, validation, and the wire settings derived from them.
--- Pure data handling; it must not start clients or touch buffers.
local M = {}

---@type ink.Options
M.defaults = {
  cmd = { 'ink-ls', '--stdio' },
  model = nil,
  approval = 'ask',
  approval_timeout = nil,
  trust_workspace = nil,
  transcript = { open = 'vertical', size = nil },
  review = { keymaps = { accept = 'ga', reject = 'gx' } },
  chat = {
    layout = 'vertical',
    size = nil,
    input_height = 5,
    max_output_lines = 200,
    treesitter_max_lines = 2000,
    keymaps = {
      send = '<C-s>',
      send_normal = '<CR>',
      accept = 'ga',
      always = 'gA',
      reject = 'gr',
      open = '<CR>',
      stop = '<C-c>',
      prompt = 'i',
      close = 'q',
      help = 'g?',
    },
  },
}

---@type ink.Options
M.options = vim.deepcopy(M.defaults)

local approval_modes = { ask = true, auto = true, readonly = true, plan = true }
local chat_layouts = { vertical = true, horizontal = true, float = true }

local model_types = {
  baseUrl = 'string',
  model = 'string',
  provider = 'string',
  apiKey = 'string',
  apiKeyEnv = 'string',
  vision = 'boolean',
  maxTokens = 'number',
  requestTimeout = 'number',
  maxRetries = 'number',
  contextWindow = 'number',
  compactThreshold = 'number',
  maxConcurrentRequests = 'number',
}

--- `checkpoints` option keys and the wire names the server reads (`ink.checkpoints`).
local checkpoint_types = { enabled = 'boolean', max_file_mb = 'number', max_age_days = 'number', max_store_mb = 'number' }
local checkpoint_wire = { enabled = 'enabled', max_file_mb = 'maxFileMb', max_age_days = 'maxAgeDays', max_store_mb = 'maxStoreMb' }

--- Checks user options; returns the list of problems (empty when valid).
---@param opts table
---@return string[]
function M.validate(opts)
  local problems = {}
  local function bad(key, want)
    problems[#problems + 1] = ('%s: expected %s'):format(key, want)
  end
  if opts.cmd ~= nil and (type(opts.cmd) ~= 'table' or type(opts.cmd[1]) ~= 'string') then
    bad('cmd', 'a list of strings')
  end
  if opts.model ~= nil then
    if type(opts.model) ~= 'table' then
      bad('model', 'a table')
    else
      for k, v in pairs(opts.model) do
        if model_types[k] == nil then
          bad('model.' .. tostring(k), 'one of ' .. table.concat(vim.tbl_keys(model_types), ', '))
        elseif type(v) ~= model_types[k] then
          bad('model.' .. k, 'a ' .. model_types[k])
        end
      end
    end
  end
  if opts.approval ~= nil and not approval_modes[opts.approval] then
    bad('approval', "'ask', 'auto', 'readonly' or 'plan'")
  end
  for _, key in ipairs({ 'permissions', 'hooks' }) do
    if opts[key] ~= nil and type(opts[key]) ~= 'table' then
      bad(key, 'a table (as in a settings file)')
    end
  end
  local t = opts.approval_timeout
  if t ~= nil and (type(t) ~= 'number' or t <= 0) then
    bad('approval_timeout', 'a number > 0')
  end
  if opts.trust_workspace ~= nil and type(opts.trust_workspace) ~= 'boolean' then
    bad('trust_workspace', 'true or false')
  end
  if opts.checkpoints ~= nil then
    if type(opts.checkpoints) ~= 'table' then
      bad('checkpoints', 'a table')
    else
      for k, v in pairs(opts.checkpoints) do
        local want = checkpoint_types[k]
        if want == nil then
          bad('checkpoints', 'keys among ' .. table.concat(vim.tbl_keys(checkpoint_types), ', '))
        elseif type(v) ~= want or (want == 'number' and v <= 0) then
          bad('checkpoints', ('%s: a %s%s'):format(k, want, want == 'number' and ' > 0' or ''))
        end
      end
    end
  end
  if opts.transcript ~= nil and type(opts.transcript) ~= 'table' then
    bad('transcript', 'a table')
  end
  if opts.review ~= nil and type(opts.review) ~= 'table' then
    bad('review', 'a table')
  end
  if opts.chat ~= nil then
    if type(opts.chat) ~= 'table' then
      bad('chat', 'a table')
    elseif opts.chat.layout ~= nil and not chat_layouts[opts.chat.layout] then
      bad('chat.layout', "'vertical', 'horizontal' or 'float'")
    elseif opts.chat.keymaps ~= nil and type(opts.chat.keymaps) ~= 'table' then
      bad('chat.keymaps', 'a table')
    end
  end
  return problems
end

--- Merges user options over the defaults. Invalid keys are dropped (defaults kept) and
--- reported once, so a typo never stops the editor from starting.
---@param opts? ink.Options
---@return ink.Options merged, string[] problems
function M.merge(opts)
  opts = vim.deepcopy(opts or {})
  local problems = M.validate(opts)
  for _, p in ipairs(problems) do
    local key, sub = p:match('^([%w_]+)%.?([%w_]*)')
    if key == 'chat' and sub ~= '' and type(opts.chat) == 'table' then
      opts.chat[sub] = nil -- keep the rest of the chat options
    else
      opts[key] = nil
    end
  end
  local merged = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  if opts.cmd then
    merged.cmd = opts.cmd -- lists replace, never merge index by index
  end
  return merged, problems
end

--- The wire settings (initializationOptions.ink / settings.ink) for the given options.
--- Empty tables are left out: they would encode as JSON arrays.
---@param opts ink.Options
---@return ink.Settings
function M.settings(opts)
  ---@type ink.Settings
  local s = { approval = opts.approval }
  if opts.model and next(opts.model) then
    s.model = vim.deepcopy(opts.model)
  end
  if opts.approval_timeout then
    s.approvalTimeoutSeconds = opts.approval_timeout
  end
  if opts.permissions and next(opts.permissions) then
    s.permissions = vim.deepcopy(opts.permissions)
  end
  if opts.hooks and next(opts.hooks) then
    s.hooks = vim.deepcopy(opts.hooks)
  end
  if opts.trust_workspace ~= nil then
    s.trustWorkspace = opts.trust_workspace
  end
  if opts.checkpoints and next(opts.checkpoints) then
    s.checkpoints = {}
    for k, v in pairs(opts.checkpoints) do
      s.checkpoints[checkpoint_wire[k]] = v
    end
  end
  return s
end

return M

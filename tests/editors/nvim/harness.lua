-- Test harness for Lua scripts run inside headless Neovim by pytest.
-- Each case runs in a coroutine; it reports "PASS <name>" or "FAIL <name>: <error>" to the
-- file named by $INK_TEST_RESULTS, then "DONE" after the last case, then quits. pytest
-- checks every expected PASS line, so an early exit or a hang can never pass silently.
local H = {}

local results_path = assert(os.getenv('INK_TEST_RESULTS'), 'INK_TEST_RESULTS is not set')
local out = assert(io.open(results_path, 'a'))

local function report(line)
  out:write(line, '\n')
  out:flush()
end
H.report = report

local cases = {}

--- Registers a case.
---@param name string
---@param fn fun()
function H.case(name, fn)
  cases[#cases + 1] = { name = name, fn = fn }
end

--- Waits (yielding the case coroutine, the editor keeps running) until pred() is truthy.
---@param pred fun(): any
---@param what string described in the failure
---@param timeout_ms? integer
---@return any the value of pred()
function H.wait_for(pred, what, timeout_ms)
  local co = assert(coroutine.running())
  local deadline = vim.uv.now() + (timeout_ms or 15000)
  while true do
    local ok, v = pcall(pred)
    if ok and v then
      return v
    end
    if vim.uv.now() > deadline then
      error(('timed out waiting for %s%s'):format(what, ok and '' or (' (last error: ' .. tostring(v) .. ')')), 2)
    end
    vim.defer_fn(function()
      coroutine.resume(co)
    end, 10)
    coroutine.yield()
  end
end

--- Waits for a User autocmd (pattern) whose data satisfies `match`; returns its data.
--- Registers before `trigger` runs, so a fast event cannot be missed.
---@param pattern string
---@param trigger? fun()
---@param match? fun(data: any): boolean
---@param timeout_ms? integer
function H.wait_event(pattern, trigger, match, timeout_ms)
  local got
  local id = vim.api.nvim_create_autocmd('User', {
    pattern = pattern,
    callback = function(ev)
      if got == nil and (not match or match(ev.data)) then
        got = { data = ev.data }
      end
    end,
  })
  if trigger then
    trigger()
  end
  local ok, err = pcall(H.wait_for, function()
    return got
  end, 'User ' .. pattern, timeout_ms)
  vim.api.nvim_del_autocmd(id)
  if not ok then
    error(err, 2)
  end
  return got.data
end

--- Asserts equality with a readable message.
function H.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    error(('%s: expected %s, got %s'):format(what or 'value', vim.inspect(expected), vim.inspect(actual)), 2)
  end
end

--- Asserts that `haystack` contains `needle` (plain text).
function H.contains(haystack, needle, what)
  if type(haystack) ~= 'string' or not haystack:find(needle, 1, true) then
    error(('%s: %s not found in %s'):format(what or 'text', vim.inspect(needle), vim.inspect(haystack)), 2)
  end
end

---@param path string
---@return string?
function H.read(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

---@param path string
---@param text string
function H.write(path, text)
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

--- Runs all registered cases in order, then quits Neovim (exit code 1 when a case failed).
function H.run()
  local failed = 0
  local co = coroutine.create(function()
    for _, c in ipairs(cases) do
      local ok, err = xpcall(c.fn, debug.traceback)
      if ok then
        report('PASS ' .. c.name)
      else
        failed = failed + 1
        report('FAIL ' .. c.name .. ': ' .. tostring(err):gsub('\n', '\n    '))
      end
    end
    report('DONE')
    out:close()
    vim.cmd(failed > 0 and 'cquit 1' or 'qall!')
  end)
  vim.schedule(function()
    local ok, err = coroutine.resume(co)
    if not ok then
      report('FAIL harness: ' .. tostring(err))
      vim.cmd('cquit 2')
    end
  end)
end

return H

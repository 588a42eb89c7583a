-- Run by bench/nvim_chat.py inside `nvim --headless -l`: renders ink/session/update text
-- deltas into the chat buffer (treesitter markdown on, re-parsed after every delta as a
-- redraw would) and, as the baseline, into the plain transcript buffer, then streams a
-- 5,000-line answer with tool calls through the event loop while a 10 ms timer measures
-- how long the loop is ever blocked. Prints one JSON line.
local repo = assert(arg[1], 'usage: nvim -l nvim_chat.lua REPO [DELTAS] [LINES]')
local n_deltas = tonumber(arg[2] or '2000')
local n_lines = tonumber(arg[3] or '5000')
vim.opt.runtimepath:prepend(repo .. '/editors/nvim')
vim.o.columns, vim.o.lines = 160, 50

local chat = require('ink.chat')
local render = require('ink.chat_render')
local transcript = require('ink.transcript')
require('ink.chat_window').open('vertical')
local parser = vim.treesitter.get_parser(render.buf(), 'markdown', { error = false })
local win = assert(require('ink.chat_window').windows())

--- What a redraw asks of the highlighter, as Neovim 0.12's does: parse the rows the chat
--- window shows (it follows the end), injections included, asynchronously in 3 ms slices.
--- Returns the time of the first (blocking) slice in ms.
--- Past chat.treesitter_max_lines the chat uses regex syntax: then what a redraw asks is
--- the syntax items of the rows on screen.
local parsing = false
local function redraw_parse()
  local b = render.buf()
  local n = vim.api.nvim_buf_line_count(b)
  local h = vim.api.nvim_win_get_height(win)
  local c0 = os.clock()
  if not vim.treesitter.highlighter.active[b] then
    vim.api.nvim_win_call(win, function()
      for l = math.max(1, n - h), n do
        vim.fn.synID(l, 1, 1)
      end
    end)
  elseif parser and not parsing then
    parsing = true
    parser:parse({ math.max(0, n - h), n }, function()
      parsing = false
    end)
  end
  return (os.clock() - c0) * 1e3
end

local words = { 'the ', 'agent ', 'reads ', '`app.py` ', 'and ', '**then** ', 'edits ', 'it. ' }
local function delta(i)
  local t = words[i % #words + 1]
  if i % 25 == 0 then
    t = t .. '\n\n'
  elseif i % 97 == 0 then
    t = t .. '\n```python\nx = 1\n```\n'
  end
  return t
end

local function update(u)
  chat.on_update({ sessionId = 's-bench', turnId = 't1', update = u })
end

local function median(xs)
  table.sort(xs)
  return xs[math.floor(#xs / 2) + 1]
end

--- Per-delta time (µs) of `fn`, median and max over n deltas.
local function measure(n, fn)
  local times = {}
  for i = 1, n do
    local c0 = os.clock() -- CPU time: other processes on a busy machine do not count
    fn(delta(i))
    times[#times + 1] = (os.clock() - c0) * 1e6
  end
  local max = 0
  for _, t in ipairs(times) do
    max = math.max(max, t)
  end
  return median(times), max
end

chat.question('explain the project', 'README.md')
local chat_median, chat_max = measure(n_deltas, function(text)
  update({ sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = text } })
end)
-- one redraw's parse of the visible rows after the whole answer is in, waited for
local p0 = vim.uv.hrtime()
redraw_parse()
vim.wait(10000, function()
  return not parsing
end, 1)
local final_parse_ms = (vim.uv.hrtime() - p0) / 1e6
transcript.question('explain the project', 'README.md')
local base_median, base_max = measure(n_deltas, function(text)
  transcript.append_text(text)
end)

-- a long answer through the event loop: a 1 ms feeder timer schedules a few deltas at a time
-- (as notifications arrive between loop turns), a redraw after each batch; a tool call
-- with output every 500 lines re-folds the whole buffer. A 10 ms timer records the longest
-- gap between its ticks: how long nothing else (keys, redraws) could run.
local function long_answer(render_delta, reset, redraw)
  reset()
  local last, stall, ticks = vim.uv.hrtime(), 0, 0
  local probe = assert(vim.uv.new_timer())
  probe:start(10, 10, function()
    local now = vim.uv.hrtime()
    stall = math.max(stall, (now - last) / 1e6 - 10)
    last, ticks = now, ticks + 1
  end)
  local lines_sent, calls, slowest, batch = 0, 0, 0, 0
  local feeder = assert(vim.uv.new_timer())
  feeder:start(1, 1, function()
    vim.schedule(function()
      local b0 = os.clock()
      for _ = 1, 5 do
        if lines_sent >= n_lines then
          break
        end
        -- paragraphs of five lines and a fenced code block every fifty, as long answers go
        local i = lines_sent + 1
        local text = ('line %d of the answer with `code` and **bold** words\n'):format(i)
        if i % 50 == 0 then
          text = '\n```lua\nlocal x = ' .. i .. '\n```\n'
        elseif i % 5 == 0 then
          text = text .. '\n'
        end
        local c0 = os.clock()
        render_delta(text, i % 500 == 0 and i / 500 or nil)
        slowest = math.max(slowest, (os.clock() - c0) * 1e3)
        lines_sent = i
        if i % 500 == 0 then
          calls = calls + 1
        end
      end
      redraw()
      batch = math.max(batch, (os.clock() - b0) * 1e3)
    end)
  end)
  local t0 = vim.uv.hrtime()
  vim.wait(300000, function()
    return lines_sent >= n_lines
  end, 5)
  local total = (vim.uv.hrtime() - t0) / 1e6
  feeder:stop()
  feeder:close()
  probe:stop()
  probe:close()
  return { total_ms = total, slowest_ms = slowest, batch_ms = batch, stall_ms = stall, ticks = ticks, calls = calls }
end

local long_chat = long_answer(function(text, call)
  update({ sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = text } })
  if call then
    local id = 'call_' .. call
    update({ sessionUpdate = 'tool_call', toolCallId = id, title = 'read f' .. call .. '.py', kind = 'read', status = 'pending', rawInput = { path = 'f.py' } })
    update({ sessionUpdate = 'tool_call_update', toolCallId = id, status = 'completed', phase = 'delivered', content = { { type = 'content', content = { type = 'text', text = string.rep('content\n', 40) } } } })
  end
end, function()
  render.reset()
  chat.question('write a long answer', nil)
end, redraw_parse)
local chat_lines = vim.api.nvim_buf_line_count(render.buf())
local long_base = long_answer(function(text, call)
  transcript.append_text(text)
  if call then
    transcript.tool_call('call_' .. call, 'read f.py', 'pending')
    transcript.tool_update('call_' .. call, 'completed')
  end
end, function()
  transcript.question('write a long answer')
end, function() end)

io.stdout:write(vim.json.encode({
  deltas = n_deltas,
  chat_median_us = chat_median,
  chat_max_us = chat_max,
  transcript_median_us = base_median,
  transcript_max_us = base_max,
  treesitter = parser ~= nil,
  treesitter_after_long = vim.treesitter.highlighter.active[render.buf()] ~= nil,
  final_parse_ms = final_parse_ms,
  long_lines = n_lines,
  long_calls = long_chat.calls,
  long_buffer_lines = chat_lines,
  long_total_ms = long_chat.total_ms,
  long_slowest_delta_ms = long_chat.slowest_ms,
  long_slowest_batch_ms = long_chat.batch_ms,
  base_slowest_batch_ms = long_base.batch_ms,
  long_max_loop_stall_ms = long_chat.stall_ms,
  long_probe_ticks = long_chat.ticks,
  base_total_ms = long_base.total_ms,
  base_slowest_delta_ms = long_base.slowest_ms,
  base_max_loop_stall_ms = long_base.stall_ms,
}) .. '\n')
vim.cmd('qa!')

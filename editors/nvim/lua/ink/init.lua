--- Public API of the ink plugin: setup() and the actions behind the :Ink* commands.
--- It composes the other modules; protocol details stay in session/review/approval.
local client = require('ink.client')
local config = require('ink.config')
local protocol = require('ink.protocol')
local review = require('ink.review')
local session = require('ink.session')
local transcript = require('ink.transcript')

local M = {}

local group = vim.api.nvim_create_augroup('ink', { clear = true })
vim.api.nvim_create_autocmd('LspProgress', {
  group = group,
  callback = function(ev)
    session.on_progress(ev.data.client_id, ev.data.params)
  end,
})

-- the server waits for the diagnostics an edit causes: tell it when they change
vim.api.nvim_create_autocmd('DiagnosticChanged', {
  group = group,
  callback = function(ev)
    require('ink.diagnostics').changed(ev.buf)
  end,
})

-- files opened while ink-ls runs are attached too, so reads see their unsaved text
vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
  group = group,
  callback = function(ev)
    local running = client.get()
    if running then
      client.attach(running, ev.buf)
    end
  end,
})

--- Configures the plugin and the "ink" LSP config. Calling it again while ink-ls runs
--- sends the new settings with workspace/didChangeConfiguration.
---@param opts? ink.Options
function M.setup(opts)
  local merged, problems = config.merge(opts)
  config.options = merged
  if #problems > 0 then
    vim.notify('ink: invalid options ignored: ' .. table.concat(problems, '; '), vim.log.levels.WARN)
  end
  review.keymaps = merged.review.keymaps or {}
  local settings = config.settings(merged)
  vim.lsp.config(client.NAME, {
    cmd = merged.cmd,
    init_options = { ink = settings },
    settings = { ink = settings },
  })
  local running = client.get()
  if running then
    running.settings = vim.tbl_deep_extend('force', running.settings or {}, { ink = settings })
    -- a cleared `permissions` / `hooks` is sent as {}: left out, the server would keep them
    local changed = vim.tbl_extend('keep', settings, { permissions = vim.empty_dict(), hooks = vim.empty_dict() })
    running:notify(protocol.lsp.did_change_configuration, { settings = { ink = changed } })
  end
end

---@param b integer
---@param l integer 1-based line
---@param encoding string
local function line_length(b, l, encoding)
  local line = vim.api.nvim_buf_get_lines(b, l - 1, l, false)[1] or ''
  return vim.str_utfindex(line, encoding)
end

--- The LSP range of a selection and a short "file:lines" label for the transcript.
---@param b integer
---@param range ink.Selection
---@param encoding string
local function lsp_range(b, range, encoding)
  local s, e = range.start, range['end']
  if range.linewise then
    return {
      start = { line = s[1] - 1, character = 0 },
      ['end'] = { line = e[1] - 1, character = line_length(b, e[1], encoding) },
    }
  end
  return vim.lsp.util.make_given_range_params(s, e, b, encoding).range
end

--- Asks ink-ls. Without a prompt, asks for one with vim.ui.input. The buffer (and range,
--- a selection given as (1,0)-indexed inclusive positions) goes along as context.
---@param prompt? string
---@param opts? ink.AskOptions
function M.ask(prompt, opts)
  opts = opts or {}
  local b = opts.bufnr or vim.api.nvim_get_current_buf()
  if not prompt or vim.trim(prompt) == '' then
    vim.ui.input({ prompt = 'Ask Ink: ' }, function(input)
      if input and vim.trim(input) ~= '' then
        M.ask(input, vim.tbl_extend('force', opts, { bufnr = b }))
      end
    end)
    return
  end
  client.ensure(b, function(c, err)
    if not c then
      vim.notify('ink: ' .. tostring(err), vim.log.levels.ERROR)
      return
    end
    local params, where = { prompt = prompt }, nil
    if client.is_file_buffer(b) then
      params.textDocument = { uri = vim.uri_from_bufnr(b) }
      where = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':~:.')
      if opts.range then
        params.range = lsp_range(b, opts.range, c.offset_encoding)
        where = ('%s:%d-%d'):format(where, opts.range.start[1], opts.range['end'][1])
      end
    end
    if session.prompt(c, params, b, opts.on_done) then
      transcript.question(prompt, where)
      require('ink.chat').question(prompt, where)
      if not require('ink.chat_window').visible() then -- the chat shows it already
        transcript.open(config.options.transcript.open, config.options.transcript.size)
      end
      if opts.on_sent then
        opts.on_sent()
      end
    end
  end)
end

--- Cancels the running turn.
function M.cancel()
  if not session.cancel() then
    vim.notify('ink: nothing to cancel', vim.log.levels.INFO)
  end
end

--- Starts a new session for the next question.
function M.new_session()
  if not session.new_session() then
    vim.notify('ink: a turn is running; :InkCancel it first', vim.log.levels.WARN)
  end
end

--- Accepts the edit under review, else allows (once) the command waiting in the chat.
function M.accept()
  local approval = require('ink.approval')
  local waiting = approval.pending()[1]
  if not review.accept() and not (waiting and approval.answer(waiting.id, protocol.approval_options.allow_once)) then
    vim.notify('ink: no edit is waiting for review', vim.log.levels.INFO)
  end
end

--- Rejects the edit under review (else the command waiting in the chat); `reason` is
--- passed to the model for an edit.
---@param reason? string
function M.reject(reason)
  local approval = require('ink.approval')
  local waiting = approval.pending()[1]
  if not review.reject(reason) and not (waiting and approval.answer(waiting.id, protocol.approval_options.reject_once)) then
    vim.notify('ink: no edit is waiting for review', vim.log.levels.INFO)
  end
end

--- Opens the chat (or goes to its input area when it is open).
---@param layout? 'vertical'|'horizontal'|'float' (default: setup()'s chat.layout)
function M.chat(layout)
  if layout and not ({ vertical = true, horizontal = true, float = true })[layout] then
    vim.notify(('ink: unknown chat layout %q (vertical, horizontal or float)'):format(layout), vim.log.levels.ERROR)
    return
  end
  require('ink.chat_window').open(layout)
end

--- Picks a past session of this workspace with vim.ui.select and resumes it in the chat.
---@param on_done? fun(err: table?, result: table?) called when it was replayed
function M.sessions(on_done)
  local b = vim.api.nvim_get_current_buf()
  client.ensure(b, function(c, err)
    if not c then
      vim.notify('ink: ' .. tostring(err), vim.log.levels.ERROR)
      return
    end
    c:request(protocol.methods.session_list, vim.empty_dict(), function(list_err, result)
      local items = not list_err and result and result.sessions or {}
      if list_err or #items == 0 then
        vim.notify('ink: ' .. (list_err and tostring(list_err.message) or 'no past sessions'), vim.log.levels.INFO)
        return
      end
      -- lets users (and tests) react to the picker, as InkApprovalRequest does
      vim.api.nvim_exec_autocmds('User', { pattern = 'InkSessionsPick', modeline = false, data = { sessions = items } })
      vim.ui.select(items, {
        prompt = 'Resume an Ink session',
        kind = 'ink.session',
        format_item = function(s)
          local when = (s.updatedAt or ''):gsub('T', ' '):gsub('%.%d+', ''):gsub('Z$', '')
          return ('%s  (%s%s)'):format(s.title or s.sessionId, when, s.running and ', running' or '')
        end,
      }, function(choice)
        if choice then
          vim.schedule(function()
            M.chat()
            session.load(c, choice.sessionId, choice.title, on_done)
          end)
        end
      end)
    end)
  end)
end

--- Picks a turn of the current session and rewinds files and conversation to before it.
---@param on_done? fun(err: table?, result: table?)
function M.rewind(on_done)
  require('ink.rewind').rewind(on_done)
end

--- The session's (or a picked turn's) changes as a quickfix list of hunks.
---@param on_done? fun(err: table?, items: table[]?)
function M.review(on_done)
  require('ink.rewind').review(on_done)
end

--- Opens the transcript, or with "server" the LSP log (ink-ls stderr lands there).
---@param what? string
function M.log(what)
  if what == 'server' then
    vim.cmd.tabedit(vim.fn.fnameescape(vim.lsp.log.get_filename()))
    return
  end
  local how = config.options.transcript.open
  transcript.open(how == false and 'vertical' or how, config.options.transcript.size)
end

--- Compacts the conversation now (summarises its older part; see :help ink-compaction).
function M.compact()
  local ok, reason = session.compact()
  if not ok then
    vim.notify('ink: ' .. tostring(reason), vim.log.levels.INFO)
  end
end

--- One-line status for statuslines: while a turn runs "Ink: read README.md — 1 of 2 done ·
--- 3.1k/8.2k (38%)", idle "Ink 3.1k/8.2k (38%)" (context in use / window), "" before any.
---@return string
function M.status()
  return session.status()
end

--- The tokens of the current session (context, window, turn and session totals).
---@return ink.Usage
function M.usage()
  return vim.deepcopy(require('ink.usage').current)
end

return M

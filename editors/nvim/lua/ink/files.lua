--- Buffer and disk texts of the files an edit touches, and applying an accepted edit:
--- buffer first (undo works), then :write, then a check of both. No UI, no LSP requests.
local edit = require('ink.edit')

local M = {}

--- The bytes of a file, or nil when it cannot be read.
---@param path string
---@return string?
function M.read_file(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

--- The text of a buffer as the LSP client sends it (lines joined, newline when 'eol').
---@param b integer
---@return string
function M.buf_text(b)
  return edit.from_lines(vim.api.nvim_buf_get_lines(b, 0, -1, true), vim.bo[b].eol)
end

--- The loaded buffer of a file, if any (never creates one).
---@param path string
---@return integer?
function M.loaded_buf(path)
  local want = vim.fs.normalize(path)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.fs.normalize(vim.api.nvim_buf_get_name(b)) == want then
      return b
    end
  end
end

--- The text a change applies to right now: the buffer when loaded, else the disk.
---@param path string
---@return string text, integer? bufnr
function M.current_text(path)
  local b = M.loaded_buf(path)
  if b then
    return M.buf_text(b), b
  end
  return M.read_file(path) or '', nil
end

--- The path relative to the current directory when inside it (for labels and reasons).
---@param path string
function M.relpath(path)
  local rel = vim.fs.relpath and vim.fs.relpath(vim.fn.getcwd(), path)
  return rel or vim.fn.fnamemodify(path, ':~:.')
end

---@param b integer
---@param path string
local function write_buffer(b, path)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  -- noautocmd: a format-on-save hook must not change what the user approved; `!` because
  -- the server may have touched the file on disk while the buffer stayed unmodified.
  return pcall(vim.api.nvim_buf_call, b, function()
    vim.cmd('silent noautocmd keepalt keepjumps write!')
  end)
end

--- Applies accepted file changes to their buffers (loading them when needed) and writes
--- the files. Checks first that nothing changed since the review was shown, and after
--- that buffer and disk hold exactly the accepted text.
---@param reviewed ink.ReviewFile[]
---@param encoding string
---@return boolean ok, string? err
function M.apply(reviewed, encoding)
  for _, f in ipairs(reviewed) do
    if M.current_text(f.change.path) ~= f.current then
      return false, M.relpath(f.change.path) .. ' changed during the review; nothing was applied'
    end
  end
  for _, f in ipairs(reviewed) do
    local path = f.change.path
    local b = M.loaded_buf(path)
    if not b then
      b = vim.fn.bufadd(path)
      vim.fn.bufload(b)
      vim.bo[b].buflisted = true
    end
    -- close the undo block first: `u` then takes back exactly this edit, not the user's
    -- typing before it (setting 'undolevels', even to itself, ends the block)
    vim.api.nvim_buf_call(b, function()
      vim.go.undolevels = vim.go.undolevels
    end)
    if not f.edited then -- the user's version of an edited proposal is set whole below
      for _, batch in ipairs(f.change.batches) do
        vim.lsp.util.apply_text_edits(edit.strip_annotations(batch), b, encoding)
      end
    end
    local eol = f.proposed:sub(-1) == '\n'
    vim.bo[b].eol = eol
    if not eol then
      vim.bo[b].fixeol = false
    end
    if M.buf_text(b) ~= f.proposed then
      -- apply_text_edits cannot express every end-of-file case (e.g. text into an empty new
      -- buffer leaves an extra empty line): set the accepted lines directly
      vim.api.nvim_buf_set_lines(b, 0, -1, true, (edit.to_lines(f.proposed)))
    end
    if M.buf_text(b) ~= f.proposed then
      vim.api.nvim_buf_set_lines(b, 0, -1, true, (edit.to_lines(f.current)))
      return false, 'applying the edit to ' .. M.relpath(path) .. ' gave a different text'
    end
    local ok, err = write_buffer(b, path)
    if not ok then
      return false, ('could not write %s: %s'):format(M.relpath(path), tostring(err))
    end
    if M.read_file(path) ~= f.proposed then
      return false, M.relpath(path) .. ' on disk does not hold the accepted text after writing'
    end
  end
  return true
end

return M

--- Pure text logic for edit review: normalizing a WorkspaceEdit per file and applying
--- TextEdits to a string. No buffers, windows or I/O here, so it is unit-testable.
local M = {}

--- Splits text into buffer lines; `eol` tells whether it ended with a newline.
---@param text string
---@return string[] lines, boolean eol
function M.to_lines(text)
  local eol = text:sub(-1) == '\n'
  if eol then
    text = text:sub(1, -2)
  end
  return vim.split(text, '\n', { plain = true }), eol
end

--- Joins buffer lines back into text (the inverse of to_lines).
---@param lines string[]
---@param eol boolean
---@return string
function M.from_lines(lines, eol)
  return table.concat(lines, '\n') .. (eol and '\n' or '')
end

--- Byte offset (0-based) in `text` of an LSP position; positions past the end of a line or
--- of the text clamp to it, as the LSP specification asks.
---@param text string
---@param starts integer[] byte offset of each line start (0-based), from line_starts()
---@param pos ink.Position
---@param encoding string 'utf-8'|'utf-16'|'utf-32'
---@return integer
local function offset_of(text, starts, pos, encoding)
  local row = pos.line + 1
  if row > #starts then
    return #text
  end
  local first = starts[row]
  local stop = (starts[row + 1] and starts[row + 1] - 1) or #text
  local line = text:sub(first + 1, stop)
  line = line:gsub('\r$', '')
  local col = pos.character
  if encoding ~= 'utf-8' then
    col = vim.str_byteindex(line, encoding, col, false)
  end
  return first + math.min(col, #line)
end

---@param text string
---@return integer[]
local function line_starts(text)
  local starts = { 0 }
  local i = 0
  while true do
    i = text:find('\n', i + 1, true)
    if not i then
      break
    end
    starts[#starts + 1] = i
  end
  return starts
end

--- Applies LSP TextEdits to a text, the way a client applies them to a buffer: all ranges
--- refer to the original text; edits at the same position keep their order.
---@param text string
---@param edits ink.TextEdit[]
---@param encoding string
---@return string? new_text, string? err
function M.apply(text, edits, encoding)
  local starts = line_starts(text)
  local spans = {}
  for i, e in ipairs(edits) do
    local s = offset_of(text, starts, e.range.start, encoding)
    local f = offset_of(text, starts, e.range['end'], encoding)
    if f < s then
      s, f = f, s
    end
    spans[#spans + 1] = { s = s, f = f, text = e.newText or '', i = i }
  end
  table.sort(spans, function(a, b)
    if a.s ~= b.s then
      return a.s < b.s
    end
    return a.i < b.i
  end)
  local out, pos = {}, 0
  for _, sp in ipairs(spans) do
    if sp.s < pos then
      return nil, 'overlapping text edits'
    end
    out[#out + 1] = text:sub(pos + 1, sp.s)
    out[#out + 1] = sp.text
    pos = sp.f
  end
  out[#out + 1] = text:sub(pos + 1)
  return table.concat(out)
end

--- Groups a WorkspaceEdit by file, in the order files first appear. Renames and deletes are
--- refused (ink-ls never sends them; a review could not show them truthfully).
---@param wedit table lsp.WorkspaceEdit
---@return ink.FileChange[]? files, string? err
function M.normalize(wedit)
  if type(wedit) ~= 'table' then
    return nil, 'no edit given'
  end
  local files, by_uri = {}, {}
  local function file(uri)
    local f = by_uri[uri]
    if not f then
      f = { uri = uri, path = vim.uri_to_fname(uri), create = false, batches = {} }
      by_uri[uri] = f
      files[#files + 1] = f
    end
    return f
  end
  if type(wedit.documentChanges) == 'table' then
    for _, change in ipairs(wedit.documentChanges) do
      if change.kind == 'create' then
        file(change.uri).create = true
      elseif change.kind ~= nil then
        return nil, ('unsupported change in the edit: %s'):format(tostring(change.kind))
      else
        local f = file(change.textDocument.uri)
        local v = change.textDocument.version
        if type(v) == 'number' and #f.batches == 0 then
          f.version = v
        end
        f.batches[#f.batches + 1] = change.edits or {}
      end
    end
  elseif type(wedit.changes) == 'table' then
    local uris = vim.tbl_keys(wedit.changes)
    table.sort(uris)
    for _, uri in ipairs(uris) do
      local f = file(uri)
      f.batches[#f.batches + 1] = wedit.changes[uri]
    end
  end
  if #files == 0 then
    return nil, 'the edit changes no file'
  end
  return files
end

--- The text a file change produces from `current`, applying its batches in order.
---@param change ink.FileChange
---@param current string
---@param encoding string
---@return string? proposed, string? err
function M.propose(change, current, encoding)
  local text = current
  for _, batch in ipairs(change.batches) do
    local err
    text, err = M.apply(text, batch, encoding)
    if not text then
      return nil, err
    end
  end
  return text
end

--- Copies of the edits without change annotations: the review already asked the user, so
--- Neovim's own confirm() prompt for annotated edits must not run a second time.
---@param edits ink.TextEdit[]
---@return ink.TextEdit[]
function M.strip_annotations(edits)
  local out = {}
  for i, e in ipairs(edits) do
    out[i] = { range = e.range, newText = e.newText }
  end
  return out
end

--- Counts of added and removed lines between two texts (for the review's title line).
---@param old string
---@param new string
---@return integer added, integer removed
function M.line_stats(old, new)
  local added, removed = 0, 0
  local diff = vim.text.diff or vim.diff -- vim.text.diff is the 0.12 name
  local hunks = diff(old, new, { result_type = 'indices' }) --[[@as integer[][] ]]
  for _, h in ipairs(hunks) do
    removed = removed + h[2]
    added = added + h[4]
  end
  return added, removed
end

return M

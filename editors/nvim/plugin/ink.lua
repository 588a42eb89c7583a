-- :Ink* commands. Logic lives in lua/ink/; nothing here runs before a command is used.
if vim.g.loaded_ink then
  return
end
vim.g.loaded_ink = true

local function ink()
  return require('ink')
end

vim.api.nvim_create_user_command('InkAsk', function(cmd)
  local opts = {}
  if cmd.range > 0 then
    local b = vim.api.nvim_get_current_buf()
    local vs, ve = vim.api.nvim_buf_get_mark(b, '<'), vim.api.nvim_buf_get_mark(b, '>')
    local from_visual = vs[1] == cmd.line1 and ve[1] == cmd.line2
    if from_visual and vim.fn.visualmode() == 'v' then
      opts.range = { start = vs, ['end'] = ve }
    else
      opts.range = { start = { cmd.line1, 0 }, ['end'] = { cmd.line2, 0 }, linewise = true }
    end
  end
  ink().ask(cmd.args, opts)
end, { nargs = '*', range = true, desc = 'Ask Ink (about the selection with a range)' })

vim.api.nvim_create_user_command('InkCancel', function()
  ink().cancel()
end, { desc = 'Cancel the running Ink turn' })

vim.api.nvim_create_user_command('InkCompact', function()
  ink().compact()
end, { desc = 'Summarise the older part of the Ink conversation now' })

vim.api.nvim_create_user_command('InkNewSession', function()
  ink().new_session()
end, { desc = 'Start a new Ink session' })

vim.api.nvim_create_user_command('InkLog', function(cmd)
  ink().log(cmd.args)
end, {
  nargs = '?',
  complete = function()
    return { 'server' }
  end,
  desc = 'Show the Ink transcript (:InkLog server for the LSP log)',
})

vim.api.nvim_create_user_command('InkAccept', function()
  ink().accept()
end, { desc = 'Accept the Ink edit under review' })

vim.api.nvim_create_user_command('InkReject', function(cmd)
  ink().reject(cmd.args)
end, { nargs = '*', desc = 'Reject the Ink edit under review (optional reason for the model)' })

vim.api.nvim_create_user_command('Ink', function(cmd)
  if cmd.args == 'rewind' then
    return ink().rewind()
  elseif cmd.args == 'review' then
    return ink().review()
  end
  ink().chat(cmd.args ~= '' and cmd.args or nil)
end, {
  nargs = '?',
  complete = function()
    return { 'vertical', 'horizontal', 'float', 'rewind', 'review' }
  end,
  desc = 'Open the Ink chat (optionally in another layout); :Ink rewind / :Ink review',
})

vim.api.nvim_create_user_command('InkSessions', function()
  ink().sessions()
end, { desc = 'Pick a past Ink session and resume it in the chat' })

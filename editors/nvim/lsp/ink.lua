-- Defaults for `vim.lsp.config('ink')`: the ink-ls server over stdio, with the plugin's
-- handlers for edit review, command approval and the session update stream.
-- Override anything with `vim.lsp.config('ink', {...})` or `require('ink').setup({...})`.
return require('ink.client').defaults()

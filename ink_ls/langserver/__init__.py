"""Language servers ink-ls starts itself (CLI, ACP, plugin-less editors), as the `lsp` tool's
answerer. The one package besides the server that imports pygls: its LSP *client*."""

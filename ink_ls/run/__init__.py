"""`ink-ls run`: the agent in a terminal — live view, `--json` event lines, terminal approvals."""

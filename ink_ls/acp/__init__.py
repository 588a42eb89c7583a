"""The Agent Client Protocol front end (`ink-ls --acp`): the same agent for Zed, JetBrains and
every other ACP client, on the `agent-client-protocol` SDK. No LSP, no pygls here."""

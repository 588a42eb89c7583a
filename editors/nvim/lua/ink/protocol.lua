--- Wire names of the ink-ls protocol (mirror of ink_ls/protocol/methods.py and protocol.md).
--- Only constants live here: no behaviour, no requires.
local M = {}

M.VERSION = '0.1.0'

--- client → server requests and server → client notifications of the ink/* family
M.methods = {
  session_prompt = 'ink/session/prompt',
  session_cancel = 'ink/session/cancel',
  session_list = 'ink/session/list',
  session_close = 'ink/session/close',
  session_compact = 'ink/session/compact',
  session_load = 'ink/session/load',
  tools = 'ink/tools',
  mcp_status = 'ink/mcp/status',
  session_update = 'ink/session/update',
  diagnostics = 'ink/diagnostics',
  diagnostics_changed = 'ink/diagnosticsChanged',
}

--- standard LSP methods the plugin handles or sends for ink-ls
M.lsp = {
  apply_edit = 'workspace/applyEdit',
  show_message_request = 'window/showMessageRequest',
  did_change_configuration = 'workspace/didChangeConfiguration',
  progress = '$/progress',
  progress_cancel = 'window/workDoneProgress/cancel',
}

--- values of `update.sessionUpdate` in ink/session/update
M.updates = {
  user_message_chunk = 'user_message_chunk',
  agent_message_chunk = 'agent_message_chunk',
  thinking = 'thinking',
  tool_call = 'tool_call',
  tool_call_update = 'tool_call_update',
  usage_update = 'usage_update',
  compaction = 'compaction',
  instructions_loaded = 'instructions_loaded',
  error = 'error',
  warning = 'warning',
  turn_end = 'turn_end',
}

--- values of `phase` in a tool_call_update
M.phases = { running = 'running', settled = 'settled', delivered = 'delivered' }

--- the turnId of the updates that replay a stored session (ink/session/load)
M.REPLAY_TURN = 'replay'

--- stopReason of a turn (prompt result and turn_end)
M.stop_reasons = {
  end_turn = 'end_turn',
  max_tokens = 'max_tokens',
  max_turn_requests = 'max_turn_requests',
  cancelled = 'cancelled',
  error = 'error',
}

--- optionId of the approval actions in window/showMessageRequest
M.approval_options = {
  allow_once = 'allow_once',
  allow_always = 'allow_always',
  reject_once = 'reject_once',
}

--- JSON-RPC application error codes (ink_ls/protocol/errors.py InkErrorCode)
M.errors = {
  session_not_found = -32001,
  session_busy = -32002,
  shutting_down = -32004,
  compaction_failed = -32005,
}

--- the progress title the server uses for a turn
M.PROGRESS_TITLE = 'Ink'

return M

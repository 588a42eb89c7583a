--- The ink-ls wire protocol for the plugin, generated from protocol.schema.json by
--- scripts/gen-protocol. Do not edit: change ink_ls/protocol and regenerate.
--- Constants for the code; `---@class` annotations of the payloads (no behaviour).
local M = {}

M.VERSION = '0.1.0'

--- ink/* requests and notifications, both directions
M.methods = {
  session_prompt = 'ink/session/prompt',
  session_cancel = 'ink/session/cancel',
  session_list = 'ink/session/list',
  session_close = 'ink/session/close',
  session_compact = 'ink/session/compact',
  session_load = 'ink/session/load',
  session_checkpoints = 'ink/session/checkpoints',
  session_rewind = 'ink/session/rewind',
  session_changes = 'ink/session/changes',
  tools = 'ink/tools',
  commands_list = 'ink/commands',
  mcp_status = 'ink/mcp/status',
  session_update = 'ink/session/update',
  diagnostics = 'ink/diagnostics',
  diagnostics_changed = 'ink/diagnosticsChanged',
  language_features = 'ink/languageFeatures',
}

--- standard LSP methods the plugin handles or sends for ink-ls
M.lsp = {
  apply_edit = 'workspace/applyEdit',
  show_message_request = 'window/showMessageRequest',
  show_message = 'window/showMessage',
  log_message = 'window/logMessage',
  show_document = 'window/showDocument',
  progress_create = 'window/workDoneProgress/create',
  progress = '$/progress',
  progress_cancel = 'window/workDoneProgress/cancel',
  cancel_request = '$/cancelRequest',
  did_change_configuration = 'workspace/didChangeConfiguration',
}

--- values of `update.sessionUpdate` in ink/session/update
M.updates = {
  agent_message_chunk = 'agent_message_chunk',
  compaction = 'compaction',
  error = 'error',
  instructions_loaded = 'instructions_loaded',
  model_queue = 'model_queue',
  thinking = 'thinking',
  tool_call = 'tool_call',
  tool_call_update = 'tool_call_update',
  turn_end = 'turn_end',
  usage_update = 'usage_update',
  user_message_chunk = 'user_message_chunk',
  warning = 'warning',
}

--- values of `phase` in a tool_call_update
M.phases = {
  running = 'running',
  settled = 'settled',
  delivered = 'delivered',
}

--- values of `status` in a tool_call_update
M.statuses = {
  pending = 'pending',
  in_progress = 'in_progress',
  completed = 'completed',
  failed = 'failed',
  cancelled = 'cancelled',
}

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
  allow_project = 'allow_project',
  reject_once = 'reject_once',
}

--- JSON-RPC application error codes (InkErrorCode)
M.errors = {
  session_not_found = -32001,
  session_busy = -32002,
  shutting_down = -32004,
  compaction_failed = -32005,
  rewind_failed = -32006,
  rewind_cancelled = -32007,
}

M.REPLAY_TURN = 'replay'
M.PROGRESS_TITLE = 'Ink'

---@class ink.AgentMessageChunk
---@field sessionUpdate 'agent_message_chunk'
---@field content ink.TextContent

---@alias ink.ApprovalOptionId 'allow_once'|'allow_always'|'allow_project'|'reject_once'

--- A changed file with its text before (null: it did not exist) and after (null: deleted;
--- for the whole session, the disk now). `binary`: not text, no texts given.
---@class ink.ChangedFile
---@field path string
---@field status 'added'|'modified'|'deleted'
---@field before? string
---@field after? string
---@field binary? boolean

--- One entry: a turn (its prompt) or a rewind; `turn` is its 1-based number (turn id
--- `t<turn>` for a turn). Rewinding to it restores the state just before it.
---@class ink.Checkpoint
---@field turn integer
---@field kind 'turn'|'rewind'
---@field prompt string
---@field createdAt string
---@field rewound boolean
---@field files ink.CheckpointFile[]
---@field noChanges boolean
---@field to? integer
---@field restore? 'files'|'conversation'|'both'
---@field notRestorable? table<string, string>
---@field conflicts? string[]

--- A file an entry changed; `added`/`removed` are line counts (absent when binary).
---@class ink.CheckpointFile
---@field path string
---@field status 'added'|'modified'|'deleted'
---@field added? integer
---@field removed? integer

--- One slash command (`ink/commands`): a built-in or a prompt file.
---@class ink.CommandEntry
---@field name string
---@field description string
---@field argumentHint string
---@field source string

---@class ink.CommandsParams

---@class ink.CommandsResult
---@field commands ink.CommandEntry[]

--- The conversation is being compacted (`phase: start`), was (`end`) or could not be.
---@class ink.CompactionUpdate
---@field sessionUpdate 'compaction'
---@field phase 'start'|'end'|'failed'
---@field reason 'threshold'|'overflow'|'manual'
---@field tokensBefore integer
---@field tokensAfter? integer
---@field contextWindow? integer
---@field summarizedMessages? integer
---@field keptMessages? integer
---@field durationMs? number
---@field error? string

--- ACP `ToolCallContent` of type `content`.
---@class ink.ContentItem
---@field type 'content'
---@field content ink.TextContent|ink.ImageContent

---@class ink.DiagnosticsChangedParams
---@field uris string[]

--- `ink/diagnostics` (server → client); `uris: null` asks for every file the editor has
--- diagnostics for.
---@class ink.DiagnosticsParams
---@field uris? string[]
---@field load boolean

---@class ink.DiagnosticsResult
---@field items? ink.FileDiagnostics[]

--- ACP `ToolCallContent` of type `diff`; `old_text` is omitted for a new file.
---@class ink.DiffItem
---@field type 'diff'
---@field path string
---@field oldText? string
---@field newText string

---@class ink.ErrorUpdate
---@field sessionUpdate 'error'
---@field message string

---@class ink.FileDiagnostics
---@field uri string
---@field version? integer
---@field diagnostics? ink.WireDiagnostic[]
---@field watched? boolean

--- An image block, as in history (`core.messages.ImageBlock`): base64 `data`, `mimeType`.
---@class ink.ImageContent
---@field type 'image'
---@field data string base64-encoded image bytes
---@field mimeType string

--- Project instruction files (AGENTS.md / CLAUDE.md) joined the system prompt.
---@class ink.InstructionsLoadedUpdate
---@field sessionUpdate 'instructions_loaded'
---@field paths string[]
---@field truncated boolean

--- `ink/languageFeatures` (server → client): one question for the language servers the
--- editor runs for `textDocument` (workspace symbols: those of its language).
---@class ink.LanguageFeaturesParams
---@field operation 'definition'|'references'|'implementation'|'hover'|'documentSymbols'|'workspaceSymbols'|'incomingCalls'|'outgoingCalls'|'rename'
---@field textDocument ink.TextDocumentIdentifier
---@field position? ink.Position
---@field query? string
---@field newName? string

--- The answer: `available: false` when no language server of the editor covers the file
--- or offers the operation (then ink-ls asks its own servers).
---@class ink.LanguageFeaturesResult
---@field available boolean
---@field result? any

--- One configured MCP server as `ink/mcp/status` reports it.
---@class ink.McpServerInfo
---@field name string
---@field origin 'user'|'workspace'|'editor'
---@field transport 'stdio'|'http'
---@field target string
---@field state 'connected'|'failed'|'starting'|'stopped'|'not started'
---@field error? string
---@field tools string[]
---@field skipped string[]
---@field trusted boolean
---@field startMs? number

---@class ink.McpStatusParams

---@class ink.McpStatusResult
---@field servers ink.McpServerInfo[]
---@field problems string[]

--- The turn's model request waits for a slot of the endpoint's request limit
--- (`model.maxConcurrentRequests`): `queued` with `ahead` requests before it (sent again as
--- the queue moves: each step below 10, then at 16, 32, 64, …), then `running` once it goes
--- out. Never sent for an endpoint without a limit.
---@class ink.ModelQueueUpdate
---@field sessionUpdate 'model_queue'
---@field status 'queued'|'running'
---@field ahead? integer

---@class ink.Position
---@field line integer
---@field character integer

--- The document (and lines) a replayed prompt was asked from.
---@class ink.PromptContext
---@field path string
---@field firstLine? integer
---@field lastLine? integer

---@class ink.Range
---@field start ink.Position
---@field end ink.Position

--- A call's result as the model got it: the error flag and text (`exitCode` of a command).
---@class ink.RawOutput
---@field isError boolean
---@field text string
---@field exitCode? integer

---@class ink.SessionCancelParams
---@field sessionId string

---@class ink.SessionChangesParams
---@field sessionId string
---@field turn? integer

---@class ink.SessionChangesResult
---@field files ink.ChangedFile[]

---@class ink.SessionCheckpointsParams
---@field sessionId string

---@class ink.SessionCheckpointsResult
---@field checkpoints ink.Checkpoint[]

---@class ink.SessionCloseParams
---@field sessionId string
---@field delete? boolean

---@class ink.SessionCompactParams
---@field sessionId string
---@field workDoneToken? string|integer

---@class ink.SessionCompactResult
---@field sessionId string
---@field compacted boolean
---@field tokensBefore integer
---@field tokensAfter integer
---@field contextWindow integer
---@field cancelled boolean

---@class ink.SessionInfo
---@field sessionId string
---@field title string
---@field createdAt string
---@field updatedAt string
---@field running boolean

---@class ink.SessionListParams

---@class ink.SessionListResult
---@field sessions ink.SessionInfo[]

---@class ink.SessionLoadParams
---@field sessionId string

---@class ink.SessionLoadResult
---@field sessionId string
---@field title string
---@field messageCount integer

---@class ink.SessionPromptParams
---@field sessionId? string
---@field prompt string
---@field textDocument? ink.TextDocumentIdentifier
---@field range? ink.Range
---@field workDoneToken? string|integer

---@class ink.SessionPromptResult
---@field sessionId string
---@field turnId string
---@field stopReason ink.StopReason
---@field text string
---@field error? string

---@class ink.SessionRewindParams
---@field sessionId string
---@field turn integer
---@field restore? 'files'|'conversation'|'both'
---@field force? boolean

--- The rewind's own entry (rewind to its `turn` to undo it) and what it did.
---@class ink.SessionRewindResult
---@field checkpoint ink.Checkpoint
---@field restored string[]
---@field kept string[]

---@alias ink.SessionUpdate ink.AgentMessageChunk|ink.ThinkingChunk|ink.UserMessageChunk|ink.ToolCallRegistered|ink.ToolCallUpdate|ink.UsageUpdate|ink.CompactionUpdate|ink.InstructionsLoadedUpdate|ink.ErrorUpdate|ink.WarningUpdate|ink.ModelQueueUpdate|ink.TurnEndUpdate

---@class ink.SessionUpdateParams
---@field sessionId string
---@field turnId string
---@field update ink.SessionUpdate

---@alias ink.StopReason 'end_turn'|'max_tokens'|'max_turn_requests'|'cancelled'|'error'

--- A text block, as in history (`core.messages.TextBlock`).
---@class ink.TextContent
---@field type 'text'
---@field text string

---@class ink.TextDocumentIdentifier
---@field uri string

--- A piece of the model's visible reasoning; clients show it collapsed, apart from the
--- answer (ACP's `agent_thought_chunk`).
---@class ink.ThinkingChunk
---@field sessionUpdate 'thinking'
---@field content ink.TextContent

---@alias ink.ToolCallContent ink.ContentItem|ink.DiffItem

--- A call is registered (the agent's `tool_start`); `parentToolCallId` is set on a call of a
--- `task` sub-agent.
---@class ink.ToolCallRegistered
---@field sessionUpdate 'tool_call'
---@field toolCallId string
---@field parentToolCallId? string
---@field title string
---@field kind ink.ToolKind
---@field status 'pending'
---@field rawInput table<string, any>

--- A call runs (`phase: running`), finished (`settled`) or its result arrives (`delivered`);
--- status `cancelled` when the user's cancel ended it.
---@class ink.ToolCallUpdate
---@field sessionUpdate 'tool_call_update'
---@field toolCallId string
---@field parentToolCallId? string
---@field status ink.ToolStatus
---@field phase 'running'|'settled'|'delivered'
---@field durationMs? number
---@field content? ink.ToolCallContent[]
---@field rawOutput? ink.RawOutput

---@class ink.ToolInfo
---@field name string
---@field description string
---@field parameters table<string, any>
---@field concurrencySafe boolean
---@field server? string

---@alias ink.ToolKind 'read'|'search'|'edit'|'execute'|'think'|'other'

---@alias ink.ToolStatus 'pending'|'in_progress'|'completed'|'failed'|'cancelled'

---@class ink.ToolsParams

---@class ink.ToolsResult
---@field tools ink.ToolInfo[]

---@class ink.TurnEndUpdate
---@field sessionUpdate 'turn_end'
---@field stopReason ink.StopReason

--- Tokens of the turn so far and of the session, and how full the context window is.
---@class ink.UsageUpdate
---@field sessionUpdate 'usage_update'
---@field inputTokens integer
---@field outputTokens integer
---@field cacheReadTokens integer
---@field contextTokens? integer
---@field contextWindow? integer
---@field contextWindowSource? string
---@field sessionInputTokens integer
---@field sessionOutputTokens integer
---@field sessionCacheReadTokens integer

--- A user prompt, sent when a session is replayed (`ink/session/load`).
---@class ink.UserMessageChunk
---@field sessionUpdate 'user_message_chunk'
---@field content ink.TextContent
---@field context? ink.PromptContext

--- Something the user should know that does not stop the turn (the session cannot be
--- saved).
---@class ink.WarningUpdate
---@field sessionUpdate 'warning'
---@field message string

--- The LSP `Diagnostic` fields ink-ls uses (others are ignored).
---@class ink.WireDiagnostic
---@field range ink.Range
---@field severity? integer
---@field code? string|integer
---@field source? string
---@field message string

return M

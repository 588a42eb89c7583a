--- Type annotations (LuaCATS) for the ink plugin; loaded by no code at runtime.
--- Keep every ---@class of the plugin here so the modules stay readable; the wire payloads'
--- classes (ink.SessionUpdateParams, ink.Range, …) are generated into ink/protocol.lua.
-- (annotations only: requiring this module returns an empty table)

---@class ink.ModelOptions
---@field baseUrl? string OpenAI-compatible endpoint, ending in /v1
---@field model? string model name sent in requests
---@field provider? 'openai-chat'|'openai-responses'|'anthropic' the API the endpoint speaks
---@field apiKey? string the key itself (prefer apiKeyEnv)
---@field apiKeyEnv? string name of the environment variable holding the key
---@field vision? boolean whether the model accepts images
---@field maxTokens? integer output-token limit per reply

---@class ink.TranscriptOptions
---@field open? 'vertical'|'horizontal'|'tab'|false how :InkAsk shows the transcript when hidden
---@field size? integer width/height of the split (nil: half)

---@class ink.ReviewKeymaps
---@field accept? string|false normal-mode key in the review buffers that accepts the edit
---@field reject? string|false normal-mode key in the review buffers that rejects the edit

---@class ink.ReviewOptions
---@field keymaps? ink.ReviewKeymaps

---@class ink.ChatKeymaps  buffer-local keys of the chat (false disables one)
---@field send? string|false sends the prompt (insert and normal mode, input area)
---@field send_normal? string|false sends the prompt (normal mode, input area)
---@field accept? string|false accepts the approval of the call under the cursor
---@field always? string|false allows a command and its tool for the rest of the session
---@field reject? string|false rejects the approval of the call under the cursor
---@field open? string|false opens the call's file, diff or approval choices
---@field stop? string|false cancels the running turn
---@field prompt? string|false (chat buffer) jumps to the input area in insert mode
---@field close? string|false (chat buffer) closes the chat windows
---@field help? string|false shows the keys

---@class ink.ChatOptions
---@field layout? 'vertical'|'horizontal'|'float' where :Ink opens the chat
---@field size? integer width (vertical) or height (horizontal) of the split; nil: a third
---@field input_height? integer lines of the input area
---@field max_output_lines? integer lines of a call's output kept in its fold
---@field treesitter_max_lines? integer past this many lines the chat uses regex markdown syntax
---@field keymaps? ink.ChatKeymaps

---@class ink.Options
---@field cmd? string[] server command; default { 'ink-ls', '--stdio' }
---@field model? ink.ModelOptions sent as initializationOptions.ink.model
---@field approval? 'ask'|'auto'|'readonly'|'plan'
---@field permissions? table Permission rules, a settings file's `permissions` shape
---@field hooks? table Hooks, a settings file's `hooks` shape
---@field approval_timeout? number seconds (approvalTimeoutSeconds)
---@field trust_workspace? boolean trust the workspace's own files (trustWorkspace); nil asks
---@field checkpoints? { enabled?: boolean, max_file_mb?: number, max_age_days?: number, max_store_mb?: number } sent as `checkpoints`
---@field transcript? ink.TranscriptOptions
---@field review? ink.ReviewOptions
---@field chat? ink.ChatOptions

---@alias ink.CallStatus 'queued'|'running'|'done'|'failed'|'refused'|'thought'|'cancelled'

---@class ink.ChatCall  one tool call shown in the chat buffer
---@field id string toolCallId
---@field title string
---@field kind? string read|search|edit|execute|think|other
---@field status ink.CallStatus
---@field parent? string the task's toolCallId for a sub-agent's call
---@field children string[] sub-agent calls listed under this (task) call
---@field body string[] the output lines, folded under the call's line
---@field mark integer extmark id on the call's line
---@field level integer fold level of the call (1, or 2 under a task)
---@field input? table rawInput
---@field duration? string
---@field decision? string what the user answered ("allowed once", "rejected", …)
---@field approval? { kind: 'command'|'edit', id: integer } a question waiting for the user
---@field diff? { path: string, old: string, new: string } the change of an edit call

---@class ink.ApprovalRequest  a pending window/showMessageRequest
---@field id integer
---@field message string
---@field actions lsp.MessageActionItem[]
---@field call_id? string the toolCallId it asks about
---@field picker_win? integer a picker window opened for it (closed when answered elsewhere)
---@field resolve fun(choice: lsp.MessageActionItem?)

---@class ink.Settings  the wire shape of initializationOptions.ink / settings.ink
---@field model? ink.ModelOptions
---@field approval? string
---@field approvalTimeoutSeconds? number
---@field trustWorkspace? boolean
---@field checkpoints? { enabled?: boolean, maxFileMb?: number, maxAgeDays?: number, maxStoreMb?: number }

---@class ink.TextEdit
---@field range ink.Range
---@field newText string
---@field annotationId? string

---@class ink.FileChange  one file of a WorkspaceEdit, normalized
---@field uri string
---@field path string absolute file name
---@field create boolean a CreateFile precedes the edits (a new file)
---@field version? integer the buffer version the edits were computed against
---@field batches ink.TextEdit[][] edit lists, applied one after the other

---@class ink.ReviewFile  a FileChange with the texts shown in the diff
---@field change ink.FileChange
---@field current string the text the edits apply to
---@field proposed string the text after the edits
---@field bufnr? integer the real buffer when the file is loaded
---@field right? integer the proposed side's buffer while the review is shown
---@field edited? boolean the user changed the proposal: `proposed` is their version

---@class ink.Review  one pending workspace/applyEdit
---@field id integer
---@field label string
---@field client_id integer
---@field encoding string position encoding of the client
---@field changes ink.FileChange[] the edit, per file
---@field files ink.ReviewFile[] filled when the review is shown
---@field co thread the handler coroutine waiting for the decision
---@field bufs integer[] the scratch buffers of the diff view
---@field tabs integer[] the tab pages of the diff view
---@field return_tab? integer the tab page the user was on when the review opened
---@field decided boolean
---@field call_id? string the toolCallId from the label

---@class ink.Decision
---@field accept boolean
---@field reason? string why it was rejected (goes to the model)

---@class ink.ApplyResult  the answer to workspace/applyEdit
---@field applied boolean
---@field failureReason? string
---@field ink? { edited: boolean, files: string[] } the user's edited version of these files (uris) was applied

---@class ink.Turn  the turn the plugin is waiting for
---@field client_id integer
---@field request_id? integer
---@field token string the workDoneToken of the turn
---@field session_id? string known once the first update or the result arrives
---@field progress? string the latest progress message

---@class ink.Selection  (1,0)-indexed positions like marks, end inclusive
---@field start integer[]
---@field end integer[]
---@field linewise? boolean whole lines (start/end columns ignored)

---@class ink.AskOptions
---@field bufnr? integer buffer the question is asked from (default: current)
---@field range? ink.Selection the selection the question is about
---@field on_done? fun(err: table?, result: ink.SessionPromptResult?) called when the turn ends
---@field on_sent? fun() called once the question was sent (the chat clears its input then)
return {}

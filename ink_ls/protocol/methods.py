"""Wire method names, defined once (mirrored in protocol.md and the editor clients).

No inline method strings elsewhere in ink_ls.
"""

from __future__ import annotations

PROTOCOL_VERSION = "0.1.0"

# client → server requests
SESSION_PROMPT = "ink/session/prompt"
SESSION_CANCEL = "ink/session/cancel"
SESSION_LIST = "ink/session/list"
SESSION_CLOSE = "ink/session/close"
SESSION_COMPACT = "ink/session/compact"
SESSION_LOAD = "ink/session/load"
SESSION_CHECKPOINTS = "ink/session/checkpoints"
SESSION_REWIND = "ink/session/rewind"
SESSION_CHANGES = "ink/session/changes"
TOOLS = "ink/tools"
COMMANDS_LIST = "ink/commands"
MCP_STATUS = "ink/mcp/status"

# server → client notifications
SESSION_UPDATE = "ink/session/update"

# the editor's diagnostics (clients announcing `experimental.ink.diagnostics`)
DIAGNOSTICS = "ink/diagnostics"
"""server → client request: the diagnostics the editor holds for some files (or all)."""
DIAGNOSTICS_CHANGED = "ink/diagnosticsChanged"
"""client → server notification: the diagnostics of these files changed."""

# the editor's language servers (clients announcing `experimental.ink.languageFeatures`)
LANGUAGE_FEATURES = "ink/languageFeatures"
"""server → client request: ask the editor's language servers (definition, references…)."""

REPLAY_TURN = "replay"
"""The `turnId` of the updates that replay a stored session (`ink/session/load`)."""
PROGRESS_TITLE = "Ink"
"""The title of the work-done progress of a turn (and of a compaction)."""

INK_REQUESTS: tuple[str, ...] = (
    SESSION_PROMPT,
    SESSION_CANCEL,
    SESSION_LIST,
    SESSION_CLOSE,
    SESSION_COMPACT,
    SESSION_LOAD,
    SESSION_CHECKPOINTS,
    SESSION_REWIND,
    SESSION_CHANGES,
    TOOLS,
    COMMANDS_LIST,
    MCP_STATUS,
)
INK_NOTIFICATIONS: tuple[str, ...] = (SESSION_UPDATE,)
INK_CLIENT_NOTIFICATIONS: tuple[str, ...] = (DIAGNOSTICS_CHANGED,)

# commands for LSP clients without an ink plugin (`workspace/executeCommand`, code actions)
COMMAND_ASK = "ink.ask"
COMMAND_CANCEL = "ink.cancel"
COMMANDS: tuple[str, ...] = (COMMAND_ASK, COMMAND_CANCEL)

# standard LSP methods the server handles for them
CODE_ACTION = "textDocument/codeAction"
EXECUTE_COMMAND = "workspace/executeCommand"

# standard LSP notifications the ink plugins send (names as in the LSP specification)
PROGRESS_CANCEL = "window/workDoneProgress/cancel"
DID_CHANGE_CONFIGURATION = "workspace/didChangeConfiguration"

# standard LSP methods the server sends (names as in the LSP specification)
APPLY_EDIT = "workspace/applyEdit"
SHOW_MESSAGE_REQUEST = "window/showMessageRequest"
SHOW_MESSAGE = "window/showMessage"
LOG_MESSAGE = "window/logMessage"
PROGRESS_CREATE = "window/workDoneProgress/create"
PROGRESS = "$/progress"
SHOW_DOCUMENT = "window/showDocument"
CANCEL_REQUEST = "$/cancelRequest"

SERVER_REQUESTS: tuple[str, ...] = (
    APPLY_EDIT,
    SHOW_MESSAGE_REQUEST,
    PROGRESS_CREATE,
    SHOW_DOCUMENT,
    DIAGNOSTICS,
    LANGUAGE_FEATURES,
)
SERVER_NOTIFICATIONS: tuple[str, ...] = (SESSION_UPDATE, PROGRESS, SHOW_MESSAGE, LOG_MESSAGE)

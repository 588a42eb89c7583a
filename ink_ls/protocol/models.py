"""Pydantic models of the `ink/*` wire shapes: params, results and `ink/session/update` payloads.

Python fields are snake_case, the wire is camelCase (alias generator). Send with `dump()`.
The updates reuse the agent's event fields (`agent.events` bases) and its stop reasons
(`TurnOutcome`), so the two never drift. Nothing here knows about pygls.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from ink_ls.agent.events import (
    CompactionInfo,
    ContextFill,
    InstructionsInfo,
    ToolCallLabel,
    ToolCallRef,
    TurnOutcome,
)
from ink_ls.core.messages import ImageBlock, TextBlock, Usage

WireStopReason = TurnOutcome
ApprovalOptionId = Literal["allow_once", "allow_always", "allow_project", "reject_once"]
"""The `optionId` of the approval actions in `window/showMessageRequest` (ACP's option ids)."""
ToolStatus = Literal["pending", "in_progress", "completed", "failed", "cancelled"]
"""The ACP statuses, plus `cancelled`: the user's cancel ended the call."""


class WireModel(BaseModel):
    """Base of every wire model: camelCase aliases, unknown keys ignored."""

    # defer_build: validators are built on first use, not while the server starts;
    # in the exported schema a field the sender always writes (it has a default) is required
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        defer_build=True,
        json_schema_serialization_defaults_required=True,
    )

    def dump(self) -> dict[str, Any]:
        """The JSON object to send: camelCase, no `None` values."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class Position(WireModel):
    line: int = Field(ge=0)
    character: int = Field(ge=0)


class Range(WireModel):
    start: Position
    end: Position


class TextDocumentIdentifier(WireModel):
    uri: str


# ---- requests -------------------------------------------------------------------------------


class AskCommandArgs(WireModel):
    """The argument object of the `ink.ask` command (`workspace/executeCommand`)."""

    prompt: str | None = None
    """The request; without it the selected text is the request (`Ink: ask about this…`)."""
    uri: str | None = None
    """The document the user asks from."""
    range: Range | None = None
    """The selection in that document."""

    @model_validator(mode="after")
    def _something_to_ask(self) -> AskCommandArgs:
        if not (self.prompt or "").strip() and (self.uri is None or self.range is None):
            raise ValueError("give a prompt, or a uri and range whose text is the request")
        if self.range is not None and self.uri is None:
            raise ValueError("range needs uri")
        return self


class AskCommandResult(WireModel):
    """The answer to `ink.ask`: the turn started (it runs in the background)."""

    session_id: str
    started: bool = True


class CancelCommandResult(WireModel):
    """The answer to `ink.cancel`: how many running turns were cancelled."""

    cancelled: int


class SessionPromptParams(WireModel):
    session_id: str | None = None
    prompt: str = Field(min_length=1)
    text_document: TextDocumentIdentifier | None = None
    range: Range | None = None
    work_done_token: str | int | None = None

    @model_validator(mode="after")
    def _range_needs_a_document(self) -> SessionPromptParams:
        if self.range is not None and self.text_document is None:
            raise ValueError("range needs textDocument")
        return self


class SessionPromptResult(WireModel):
    session_id: str
    turn_id: str
    stop_reason: WireStopReason
    text: str
    error: str | None = None


class SessionCancelParams(WireModel):
    session_id: str


class SessionListParams(WireModel):
    pass


class SessionInfo(WireModel):
    session_id: str
    title: str
    created_at: str
    updated_at: str
    running: bool


class SessionListResult(WireModel):
    sessions: list[SessionInfo]


class SessionCloseParams(WireModel):
    session_id: str
    delete: bool = False


class SessionCompactParams(WireModel):
    session_id: str
    work_done_token: str | int | None = None


class SessionCompactResult(WireModel):
    session_id: str
    compacted: bool
    """False when there was nothing older than the latest turn to summarise."""
    tokens_before: int
    tokens_after: int
    context_window: int
    cancelled: bool = False


class SessionLoadParams(WireModel):
    session_id: str


class SessionLoadResult(WireModel):
    session_id: str
    title: str
    message_count: int


class SessionCheckpointsParams(WireModel):
    session_id: str


class CheckpointFile(WireModel):
    """A file an entry changed; `added`/`removed` are line counts (absent when binary)."""

    path: str
    status: Literal["added", "modified", "deleted"]
    added: int | None = None
    removed: int | None = None


class Checkpoint(WireModel):
    """One entry: a turn (its prompt) or a rewind; `turn` is its 1-based number (turn id
    `t<turn>` for a turn). Rewinding to it restores the state just before it."""

    turn: int
    kind: Literal["turn", "rewind"]
    prompt: str
    created_at: str
    rewound: bool
    files: list[CheckpointFile]
    no_changes: bool
    to: int | None = None
    """For a rewind: the entry it went back to."""
    restore: Literal["files", "conversation", "both"] | None = None
    not_restorable: dict[str, str] | None = None
    """Files the entry changed that could not be kept (larger than the cap, binary)."""
    conflicts: list[str] | None = None
    """For a rewind: files the user had changed, left as they were."""


class SessionCheckpointsResult(WireModel):
    checkpoints: list[Checkpoint]


class SessionRewindParams(WireModel):
    session_id: str
    turn: int = Field(ge=1)
    restore: Literal["files", "conversation", "both"] = "both"
    force: bool = False
    """Overwrite files the user changed without asking."""


class SessionRewindResult(WireModel):
    """The rewind's own entry (rewind to its `turn` to undo it) and what it did."""

    checkpoint: Checkpoint
    restored: list[str]
    kept: list[str]
    """Conflicting files left as the user had them."""


class SessionChangesParams(WireModel):
    session_id: str
    turn: int | None = Field(default=None, ge=1)
    """One entry's changes; without it, the whole session's (entries in effect)."""


class ChangedFile(WireModel):
    """A changed file with its text before (null: it did not exist) and after (null: deleted;
    for the whole session, the disk now). `binary`: not text, no texts given."""

    path: str
    status: Literal["added", "modified", "deleted"]
    before: str | None = None
    after: str | None = None
    binary: bool | None = None


class SessionChangesResult(WireModel):
    files: list[ChangedFile]


class ToolsParams(WireModel):
    pass


class ToolInfo(WireModel):
    name: str
    description: str
    parameters: dict[str, Any]
    concurrency_safe: bool
    server: str | None = None
    """The MCP server offering the tool; absent for built-in tools."""


class ToolsResult(WireModel):
    tools: list[ToolInfo]


class CommandsParams(WireModel):
    pass


class CommandEntry(WireModel):
    """One slash command (`ink/commands`): a built-in or a prompt file."""

    name: str
    """Without the leading `/`; subfolders of a prompt-file folder namespace it (`git:commit`)."""
    description: str
    argument_hint: str = ""
    source: str
    """`builtin`, or the prompt file's path (relative to the workspace, `~/…` in the home)."""


class CommandsResult(WireModel):
    commands: list[CommandEntry]


class McpStatusParams(WireModel):
    pass


class McpServerInfo(WireModel):
    """One configured MCP server as `ink/mcp/status` reports it."""

    name: str
    origin: Literal["user", "workspace", "editor"]
    transport: Literal["stdio", "http"]
    target: str
    """The command line or URL as written in the configuration (variables not expanded)."""
    state: Literal["connected", "failed", "starting", "stopped", "not started"]
    error: str | None = None
    tools: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    trusted: bool = False
    start_ms: float | None = None


class McpStatusResult(WireModel):
    servers: list[McpServerInfo]
    problems: list[str] = Field(default_factory=list)
    """Configuration problems (unknown keys, unreadable files)."""


# ---- the editor's diagnostics -----------------------------------------------------------------


class DiagnosticsParams(WireModel):
    """`ink/diagnostics` (server → client); `uris: null` asks for every file the editor has
    diagnostics for."""

    uris: list[str] | None = None
    load: bool = False
    """Load files the editor has not open (without showing them), so their language servers
    see them; false: answer from what is open."""


class WireDiagnostic(WireModel):
    """The LSP `Diagnostic` fields ink-ls uses (others are ignored)."""

    range: Range
    severity: int | None = None
    """1 error, 2 warning, 3 information, 4 hint (LSP)."""
    code: str | int | None = None
    source: str | None = None
    message: str


class FileDiagnostics(WireModel):
    uri: str
    version: int | None = None
    diagnostics: list[WireDiagnostic] = Field(default_factory=list)
    watched: bool = False
    """True when something in the editor reports diagnostics for this file (a language
    server is attached), so a change will be followed by fresh diagnostics."""


class DiagnosticsResult(WireModel):
    items: list[FileDiagnostics] = Field(default_factory=list)


class DiagnosticsChangedParams(WireModel):
    uris: list[str]


LanguageFeature = Literal[
    "definition",
    "references",
    "implementation",
    "hover",
    "documentSymbols",
    "workspaceSymbols",
    "incomingCalls",
    "outgoingCalls",
    "rename",
]
"""What `ink/languageFeatures` asks the editor's language servers."""


class LanguageFeaturesParams(WireModel):
    """`ink/languageFeatures` (server → client): one question for the language servers the
    editor runs for `textDocument` (workspace symbols: those of its language)."""

    operation: LanguageFeature
    text_document: TextDocumentIdentifier
    position: Position | None = None
    """In the negotiated position encoding; absent for documentSymbols and workspaceSymbols."""
    query: str | None = None
    """workspaceSymbols: the name to look for."""
    new_name: str | None = None
    """rename: the new name."""


class LanguageFeaturesResult(WireModel):
    """The answer: `available: false` when no language server of the editor covers the file
    or offers the operation (then ink-ls asks its own servers)."""

    available: bool
    result: Any = None
    """The raw LSP result, merged over the editor's servers without duplicates (a list for
    every operation but rename): definition/references/implementation `Location[]` or
    `LocationLink[]`, hover `Hover[]`, documentSymbols `DocumentSymbol[]` or
    `SymbolInformation[]`, workspaceSymbols `SymbolInformation[]` or `WorkspaceSymbol[]`,
    incomingCalls `CallHierarchyIncomingCall[]`, outgoingCalls `CallHierarchyOutgoingCall[]`,
    rename one `WorkspaceEdit` (or null: nothing to rename). Positions in the negotiated
    encoding."""


# ---- ink/session/update ---------------------------------------------------------------------


class TextContent(TextBlock, WireModel):
    """A text block, as in history (`core.messages.TextBlock`)."""


class ImageContent(ImageBlock, WireModel):
    """An image block, as in history (`core.messages.ImageBlock`): base64 `data`, `mimeType`."""


class ContentItem(WireModel):
    """ACP `ToolCallContent` of type `content`."""

    type: Literal["content"] = "content"
    content: Annotated[TextContent | ImageContent, Field(discriminator="type")]


class DiffItem(WireModel):
    """ACP `ToolCallContent` of type `diff`; `old_text` is omitted for a new file."""

    type: Literal["diff"] = "diff"
    path: str
    old_text: str | None = None
    new_text: str


ToolCallContent = Annotated[ContentItem | DiffItem, Field(discriminator="type")]


class UpdateBody(WireModel):
    """Base of the `update` kinds: `sessionUpdate` first (each kind narrows it to its tag)."""

    session_update: str


class AgentMessageChunk(UpdateBody):
    session_update: Literal["agent_message_chunk"] = "agent_message_chunk"
    content: TextContent


class ThinkingChunk(UpdateBody):
    """A piece of the model's visible reasoning; clients show it collapsed, apart from the
    answer (ACP's `agent_thought_chunk`)."""

    session_update: Literal["thinking"] = "thinking"
    content: TextContent


class PromptContext(WireModel):
    """The document (and lines) a replayed prompt was asked from."""

    path: str
    first_line: int | None = None
    last_line: int | None = None


class UserMessageChunk(UpdateBody):
    """A user prompt, sent when a session is replayed (`ink/session/load`)."""

    session_update: Literal["user_message_chunk"] = "user_message_chunk"
    content: TextContent
    context: PromptContext | None = None


class ToolCallRegistered(ToolCallLabel, ToolCallRef, UpdateBody):
    """A call is registered (the agent's `tool_start`); `parentToolCallId` is set on a call of a
    `task` sub-agent."""

    session_update: Literal["tool_call"] = "tool_call"
    status: Literal["pending"] = "pending"
    raw_input: dict[str, Any]


class RawOutput(WireModel):
    """A call's result as the model got it: the error flag and text (`exitCode` of a command)."""

    is_error: bool
    text: str
    exit_code: int | None = None


class ToolCallUpdate(ToolCallRef, UpdateBody):
    """A call runs (`phase: running`), finished (`settled`) or its result arrives (`delivered`);
    status `cancelled` when the user's cancel ended it."""

    session_update: Literal["tool_call_update"] = "tool_call_update"
    status: ToolStatus
    phase: Literal["running", "settled", "delivered"]
    duration_ms: float | None = None
    content: list[ToolCallContent] | None = None
    raw_output: RawOutput | None = None


class UsageUpdate(ContextFill, Usage, UpdateBody):
    """Tokens of the turn so far and of the session, and how full the context window is."""

    session_update: Literal["usage_update"] = "usage_update"
    session_input_tokens: int = 0
    session_output_tokens: int = 0
    session_cache_read_tokens: int = 0


class CompactionUpdate(CompactionInfo, UpdateBody):
    """The conversation is being compacted (`phase: start`), was (`end`) or could not be."""

    session_update: Literal["compaction"] = "compaction"


class InstructionsLoadedUpdate(InstructionsInfo, UpdateBody):
    """Project instruction files (AGENTS.md / CLAUDE.md) joined the system prompt."""

    session_update: Literal["instructions_loaded"] = "instructions_loaded"


class ErrorUpdate(UpdateBody):
    session_update: Literal["error"] = "error"
    message: str


class WarningUpdate(UpdateBody):
    """Something the user should know that does not stop the turn (the session cannot be
    saved)."""

    session_update: Literal["warning"] = "warning"
    message: str


class ModelQueueUpdate(UpdateBody):
    """The turn's model request waits for a slot of the endpoint's request limit
    (`model.maxConcurrentRequests`): `queued` with `ahead` requests before it (sent again as
    the queue moves: each step below 10, then at 16, 32, 64, …), then `running` once it goes
    out. Never sent for an endpoint without a limit."""

    session_update: Literal["model_queue"] = "model_queue"
    status: Literal["queued", "running"]
    ahead: int | None = None


class TurnEndUpdate(UpdateBody):
    session_update: Literal["turn_end"] = "turn_end"
    stop_reason: WireStopReason


SessionUpdateBody = Annotated[
    AgentMessageChunk
    | ThinkingChunk
    | UserMessageChunk
    | ToolCallRegistered
    | ToolCallUpdate
    | UsageUpdate
    | CompactionUpdate
    | InstructionsLoadedUpdate
    | ErrorUpdate
    | WarningUpdate
    | ModelQueueUpdate
    | TurnEndUpdate,
    Field(discriminator="session_update"),
]


class SessionUpdateParams(WireModel):
    session_id: str
    turn_id: str
    update: SessionUpdateBody

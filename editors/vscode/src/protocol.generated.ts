/**
 * The ink-ls wire protocol as TypeScript, generated from protocol.schema.json by
 * scripts/gen-protocol. Do not edit: change ink_ls/protocol and regenerate.
 */

export const PROTOCOL_VERSION = '0.1.0';

// ink/* methods
/** client → server request */
export const SESSION_PROMPT = 'ink/session/prompt';
/** client → server request */
export const SESSION_CANCEL = 'ink/session/cancel';
/** client → server request */
export const SESSION_LIST = 'ink/session/list';
/** client → server request */
export const SESSION_CLOSE = 'ink/session/close';
/** client → server request */
export const SESSION_COMPACT = 'ink/session/compact';
/** client → server request */
export const SESSION_LOAD = 'ink/session/load';
/** client → server request */
export const SESSION_CHECKPOINTS = 'ink/session/checkpoints';
/** client → server request */
export const SESSION_REWIND = 'ink/session/rewind';
/** client → server request */
export const SESSION_CHANGES = 'ink/session/changes';
/** client → server request */
export const TOOLS = 'ink/tools';
/** client → server request */
export const COMMANDS_LIST = 'ink/commands';
/** client → server request */
export const MCP_STATUS = 'ink/mcp/status';
/** server → client notification */
export const SESSION_UPDATE = 'ink/session/update';
/** server → client request */
export const DIAGNOSTICS = 'ink/diagnostics';
/** client → server notification */
export const DIAGNOSTICS_CHANGED = 'ink/diagnosticsChanged';
/** server → client request */
export const LANGUAGE_FEATURES = 'ink/languageFeatures';

// standard LSP methods the clients handle or send
export const APPLY_EDIT = 'workspace/applyEdit';
export const SHOW_MESSAGE_REQUEST = 'window/showMessageRequest';
export const SHOW_MESSAGE = 'window/showMessage';
export const LOG_MESSAGE = 'window/logMessage';
export const SHOW_DOCUMENT = 'window/showDocument';
export const PROGRESS_CREATE = 'window/workDoneProgress/create';
export const PROGRESS = '$/progress';
export const PROGRESS_CANCEL = 'window/workDoneProgress/cancel';
export const CANCEL_REQUEST = '$/cancelRequest';
export const DID_CHANGE_CONFIGURATION = 'workspace/didChangeConfiguration';

// wire constants
export const REPLAY_TURN = 'replay';
export const PROGRESS_TITLE = 'Ink';

/** JSON-RPC app error codes (`InkErrorCode` in ink_ls/protocol/errors.py). */
export const InkErrorCode = {
  SessionNotFound: -32001,
  SessionBusy: -32002,
  ShuttingDown: -32004,
  CompactionFailed: -32005,
  RewindFailed: -32006,
  RewindCancelled: -32007,
} as const;

/** Params and result of the client → server requests. */
export interface InkRequests {
  [SESSION_PROMPT]: { params: SessionPromptParams; result: SessionPromptResult; };
  [SESSION_CANCEL]: { params: SessionCancelParams; result: null; };
  [SESSION_LIST]: { params: SessionListParams; result: SessionListResult; };
  [SESSION_CLOSE]: { params: SessionCloseParams; result: null; };
  [SESSION_COMPACT]: { params: SessionCompactParams; result: SessionCompactResult; };
  [SESSION_LOAD]: { params: SessionLoadParams; result: SessionLoadResult; };
  [SESSION_CHECKPOINTS]: { params: SessionCheckpointsParams; result: SessionCheckpointsResult; };
  [SESSION_REWIND]: { params: SessionRewindParams; result: SessionRewindResult; };
  [SESSION_CHANGES]: { params: SessionChangesParams; result: SessionChangesResult; };
  [TOOLS]: { params: ToolsParams; result: ToolsResult; };
  [COMMANDS_LIST]: { params: CommandsParams; result: CommandsResult; };
  [MCP_STATUS]: { params: McpStatusParams; result: McpStatusResult; };
}

/** Params and result of the server → client requests. */
export interface InkServerRequests {
  [DIAGNOSTICS]: { params: DiagnosticsParams; result: DiagnosticsResult; };
  [LANGUAGE_FEATURES]: { params: LanguageFeaturesParams; result: LanguageFeaturesResult; };
}

/** Params of the server → client notifications. */
export interface InkNotifications {
  [SESSION_UPDATE]: { params: SessionUpdateParams; };
}

/** Params of the client → server notifications. */
export interface InkClientNotifications {
  [DIAGNOSTICS_CHANGED]: { params: DiagnosticsChangedParams; };
}

export interface AgentMessageChunk {
  sessionUpdate: 'agent_message_chunk';
  content: TextContent;
}

export type ApprovalOptionId = 'allow_once' | 'allow_always' | 'allow_project' | 'reject_once';

/**
 * A changed file with its text before (null: it did not exist) and after (null: deleted;
 * for the whole session, the disk now). `binary`: not text, no texts given.
 */
export interface ChangedFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  before?: string;
  after?: string;
  binary?: boolean;
}

/**
 * One entry: a turn (its prompt) or a rewind; `turn` is its 1-based number (turn id
 * `t<turn>` for a turn). Rewinding to it restores the state just before it.
 */
export interface Checkpoint {
  turn: number;
  kind: 'turn' | 'rewind';
  prompt: string;
  createdAt: string;
  rewound: boolean;
  files: CheckpointFile[];
  noChanges: boolean;
  to?: number;
  restore?: 'files' | 'conversation' | 'both';
  notRestorable?: Record<string, string>;
  conflicts?: string[];
}

/** A file an entry changed; `added`/`removed` are line counts (absent when binary). */
export interface CheckpointFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  added?: number;
  removed?: number;
}

/** One slash command (`ink/commands`): a built-in or a prompt file. */
export interface CommandEntry {
  name: string;
  description: string;
  argumentHint: string;
  source: string;
}

export type CommandsParams = Record<string, never>;

export interface CommandsResult {
  commands: CommandEntry[];
}

/** The conversation is being compacted (`phase: start`), was (`end`) or could not be. */
export interface CompactionUpdate {
  sessionUpdate: 'compaction';
  phase: 'start' | 'end' | 'failed';
  reason: 'threshold' | 'overflow' | 'manual';
  tokensBefore: number;
  tokensAfter?: number;
  contextWindow?: number;
  summarizedMessages?: number;
  keptMessages?: number;
  durationMs?: number;
  error?: string;
}

/** ACP `ToolCallContent` of type `content`. */
export interface ContentItem {
  type: 'content';
  content: TextContent | ImageContent;
}

export interface DiagnosticsChangedParams {
  uris: string[];
}

/**
 * `ink/diagnostics` (server → client); `uris: null` asks for every file the editor has
 * diagnostics for.
 */
export interface DiagnosticsParams {
  uris?: string[];
  load: boolean;
}

export interface DiagnosticsResult {
  items?: FileDiagnostics[];
}

/** ACP `ToolCallContent` of type `diff`; `old_text` is omitted for a new file. */
export interface DiffItem {
  type: 'diff';
  path: string;
  oldText?: string;
  newText: string;
}

export interface ErrorUpdate {
  sessionUpdate: 'error';
  message: string;
}

export interface FileDiagnostics {
  uri: string;
  version?: number;
  diagnostics?: WireDiagnostic[];
  watched?: boolean;
}

/** An image block, as in history (`core.messages.ImageBlock`): base64 `data`, `mimeType`. */
export interface ImageContent {
  type: 'image';
  /** base64-encoded image bytes */
  data: string;
  mimeType: string;
}

/** Project instruction files (AGENTS.md / CLAUDE.md) joined the system prompt. */
export interface InstructionsLoadedUpdate {
  sessionUpdate: 'instructions_loaded';
  paths: string[];
  truncated: boolean;
}

/**
 * `ink/languageFeatures` (server → client): one question for the language servers the
 * editor runs for `textDocument` (workspace symbols: those of its language).
 */
export interface LanguageFeaturesParams {
  operation: 'definition' | 'references' | 'implementation' | 'hover' | 'documentSymbols' | 'workspaceSymbols' | 'incomingCalls' | 'outgoingCalls' | 'rename';
  textDocument: TextDocumentIdentifier;
  position?: Position;
  query?: string;
  newName?: string;
}

/**
 * The answer: `available: false` when no language server of the editor covers the file
 * or offers the operation (then ink-ls asks its own servers).
 */
export interface LanguageFeaturesResult {
  available: boolean;
  result?: unknown;
}

/** One configured MCP server as `ink/mcp/status` reports it. */
export interface McpServerInfo {
  name: string;
  origin: 'user' | 'workspace' | 'editor';
  transport: 'stdio' | 'http';
  target: string;
  state: 'connected' | 'failed' | 'starting' | 'stopped' | 'not started';
  error?: string;
  tools: string[];
  skipped: string[];
  trusted: boolean;
  startMs?: number;
}

export type McpStatusParams = Record<string, never>;

export interface McpStatusResult {
  servers: McpServerInfo[];
  problems: string[];
}

/**
 * The turn's model request waits for a slot of the endpoint's request limit
 * (`model.maxConcurrentRequests`): `queued` with `ahead` requests before it (sent again as
 * the queue moves: each step below 10, then at 16, 32, 64, …), then `running` once it goes
 * out. Never sent for an endpoint without a limit.
 */
export interface ModelQueueUpdate {
  sessionUpdate: 'model_queue';
  status: 'queued' | 'running';
  ahead?: number;
}

export interface Position {
  line: number;
  character: number;
}

/** The document (and lines) a replayed prompt was asked from. */
export interface PromptContext {
  path: string;
  firstLine?: number;
  lastLine?: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** A call's result as the model got it: the error flag and text (`exitCode` of a command). */
export interface RawOutput {
  isError: boolean;
  text: string;
  exitCode?: number;
}

export interface SessionCancelParams {
  sessionId: string;
}

export interface SessionChangesParams {
  sessionId: string;
  turn?: number;
}

export interface SessionChangesResult {
  files: ChangedFile[];
}

export interface SessionCheckpointsParams {
  sessionId: string;
}

export interface SessionCheckpointsResult {
  checkpoints: Checkpoint[];
}

export interface SessionCloseParams {
  sessionId: string;
  delete?: boolean;
}

export interface SessionCompactParams {
  sessionId: string;
  workDoneToken?: string | number;
}

export interface SessionCompactResult {
  sessionId: string;
  compacted: boolean;
  tokensBefore: number;
  tokensAfter: number;
  contextWindow: number;
  cancelled: boolean;
}

export interface SessionInfo {
  sessionId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  running: boolean;
}

export type SessionListParams = Record<string, never>;

export interface SessionListResult {
  sessions: SessionInfo[];
}

export interface SessionLoadParams {
  sessionId: string;
}

export interface SessionLoadResult {
  sessionId: string;
  title: string;
  messageCount: number;
}

export interface SessionPromptParams {
  sessionId?: string;
  prompt: string;
  textDocument?: TextDocumentIdentifier;
  range?: Range;
  workDoneToken?: string | number;
}

export interface SessionPromptResult {
  sessionId: string;
  turnId: string;
  stopReason: StopReason;
  text: string;
  error?: string;
}

export interface SessionRewindParams {
  sessionId: string;
  turn: number;
  restore?: 'files' | 'conversation' | 'both';
  force?: boolean;
}

/** The rewind's own entry (rewind to its `turn` to undo it) and what it did. */
export interface SessionRewindResult {
  checkpoint: Checkpoint;
  restored: string[];
  kept: string[];
}

export type SessionUpdate =
  | AgentMessageChunk
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
  | TurnEndUpdate;

export interface SessionUpdateParams {
  sessionId: string;
  turnId: string;
  update: SessionUpdate;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'cancelled' | 'error';

/** A text block, as in history (`core.messages.TextBlock`). */
export interface TextContent {
  type: 'text';
  text: string;
}

export interface TextDocumentIdentifier {
  uri: string;
}

/**
 * A piece of the model's visible reasoning; clients show it collapsed, apart from the
 * answer (ACP's `agent_thought_chunk`).
 */
export interface ThinkingChunk {
  sessionUpdate: 'thinking';
  content: TextContent;
}

export type ToolCallContent =
  | ContentItem
  | DiffItem;

/**
 * A call is registered (the agent's `tool_start`); `parentToolCallId` is set on a call of a
 * `task` sub-agent.
 */
export interface ToolCallRegistered {
  sessionUpdate: 'tool_call';
  toolCallId: string;
  parentToolCallId?: string;
  title: string;
  kind: ToolKind;
  status: 'pending';
  rawInput: Record<string, unknown>;
}

/**
 * A call runs (`phase: running`), finished (`settled`) or its result arrives (`delivered`);
 * status `cancelled` when the user's cancel ended it.
 */
export interface ToolCallUpdate {
  sessionUpdate: 'tool_call_update';
  toolCallId: string;
  parentToolCallId?: string;
  status: ToolStatus;
  phase: 'running' | 'settled' | 'delivered';
  durationMs?: number;
  content?: ToolCallContent[];
  rawOutput?: RawOutput;
}

export interface ToolInfo {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  concurrencySafe: boolean;
  server?: string;
}

export type ToolKind = 'read' | 'search' | 'edit' | 'execute' | 'think' | 'other';

export type ToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export type ToolsParams = Record<string, never>;

export interface ToolsResult {
  tools: ToolInfo[];
}

export interface TurnEndUpdate {
  sessionUpdate: 'turn_end';
  stopReason: StopReason;
}

/** Tokens of the turn so far and of the session, and how full the context window is. */
export interface UsageUpdate {
  sessionUpdate: 'usage_update';
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  contextTokens?: number;
  contextWindow?: number;
  contextWindowSource?: string;
  sessionInputTokens: number;
  sessionOutputTokens: number;
  sessionCacheReadTokens: number;
}

/** A user prompt, sent when a session is replayed (`ink/session/load`). */
export interface UserMessageChunk {
  sessionUpdate: 'user_message_chunk';
  content: TextContent;
  context?: PromptContext;
}

/**
 * Something the user should know that does not stop the turn (the session cannot be
 * saved).
 */
export interface WarningUpdate {
  sessionUpdate: 'warning';
  message: string;
}

/** The LSP `Diagnostic` fields ink-ls uses (others are ignored). */
export interface WireDiagnostic {
  range: Range;
  severity?: number;
  code?: string | number;
  source?: string;
  message: string;
}

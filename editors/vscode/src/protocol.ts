/**
 * The ink-ls wire protocol as TypeScript: method names and payload shapes, mirroring
 * `protocol.md` and `ink_ls/protocol/methods.py`. Types and constants only: no `vscode`
 * import, no behaviour. Every other module takes its method names from here.
 */

export const PROTOCOL_VERSION = '0.1.0';

// client → server requests
export const SESSION_PROMPT = 'ink/session/prompt';
export const SESSION_CANCEL = 'ink/session/cancel';
export const SESSION_LIST = 'ink/session/list';
export const SESSION_CLOSE = 'ink/session/close';
export const SESSION_LOAD = 'ink/session/load';
export const SESSION_COMPACT = 'ink/session/compact';
export const TOOLS = 'ink/tools';

// server → client notifications
export const SESSION_UPDATE = 'ink/session/update';

// the editor's diagnostics: server → client request, client → server notification
export const DIAGNOSTICS = 'ink/diagnostics';
export const DIAGNOSTICS_CHANGED = 'ink/diagnosticsChanged';

/** JSON-RPC app error codes (`InkErrorCode` in ink_ls/protocol/errors.py). */
export const InkErrorCode = {
  SessionNotFound: -32001,
  SessionBusy: -32002,
  ShuttingDown: -32004,
  CompactionFailed: -32005,
} as const;

/** The result of `ink/session/compact`. */
export interface SessionCompactResult {
  sessionId: string;
  compacted: boolean;
  tokensBefore: number;
  tokensAfter: number;
  contextWindow: number;
  cancelled?: boolean;
}

export type ApprovalMode = 'ask' | 'auto' | 'readonly' | 'plan';

/** The API a model endpoint speaks (`model.provider`). */
export type ModelProvider = 'openai-chat' | 'openai-responses' | 'anthropic';

/** `initializationOptions.ink` and `settings.ink` of `workspace/didChangeConfiguration`. */
export interface InkSettings {
  model: {
    baseUrl?: string;
    model?: string;
    provider?: ModelProvider;
    apiKeyEnv?: string;
    vision?: boolean;
    maxTokens?: number;
    requestTimeout?: number;
    maxRetries?: number;
    contextWindow?: number;
    compactThreshold?: number;
  };
  approval: ApprovalMode;
  approvalTimeoutSeconds?: number;
  /** Permission rules, a settings file's `permissions` shape. */
  permissions?: Record<string, unknown>;
  /** Hooks, a settings file's `hooks` shape. */
  hooks?: Record<string, unknown>;
  trustWorkspace?: boolean;
}

/** `capabilities.experimental.ink` announced by this client. */
export interface ClientInkCapabilities {
  reviewsApplyEdit: boolean;
  diagnostics: boolean;
}

/** `ink/diagnostics` params: `uris: null` asks for every file with diagnostics. */
export interface DiagnosticsParams {
  uris?: string[] | null;
  load?: boolean;
}

/** An LSP Diagnostic (the fields ink-ls reads). */
export interface WireDiagnostic {
  range: Range;
  severity?: number;
  code?: string | number;
  source?: string;
  message: string;
}

export interface FileDiagnostics {
  uri: string;
  version?: number;
  diagnostics: WireDiagnostic[];
  watched: boolean;
}

export interface DiagnosticsResult {
  items: FileDiagnostics[];
}

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface SessionPromptParams {
  sessionId?: string;
  prompt: string;
  textDocument?: { uri: string };
  range?: Range;
  workDoneToken?: string | number;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'cancelled' | 'error';

export interface SessionPromptResult {
  sessionId: string;
  turnId: string;
  stopReason: StopReason;
  text: string;
  error?: string;
}

export interface SessionCancelParams {
  sessionId: string;
}

export interface SessionInfo {
  sessionId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  running: boolean;
}

export interface SessionListResult {
  sessions: SessionInfo[];
}

export interface SessionCloseParams {
  sessionId: string;
  delete?: boolean;
}

export interface SessionLoadParams {
  sessionId: string;
}

export interface SessionLoadResult {
  sessionId: string;
  title: string;
  messageCount: number;
}

export interface ToolInfo {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  concurrencySafe: boolean;
}

export interface ToolsResult {
  tools: ToolInfo[];
}

export type ToolKind = 'read' | 'edit' | 'search' | 'execute' | 'think' | 'other';
export type ToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed';
export type ToolPhase = 'running' | 'settled' | 'delivered';

export interface TextContent {
  type: 'text';
  text: string;
}

export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
}

export interface ContentItem {
  type: 'content';
  content: TextContent | ImageContent;
}

export interface DiffItem {
  type: 'diff';
  path: string;
  oldText: string | null;
  newText: string;
}

export interface AgentMessageChunk {
  sessionUpdate: 'agent_message_chunk';
  content: TextContent;
}

/** The model's visible reasoning, streamed; not part of the answer (shown collapsed). */
export interface ThinkingChunk {
  sessionUpdate: 'thinking';
  content: TextContent;
}

/** A user prompt, sent when a session is replayed by `ink/session/load`. */
export interface UserMessageChunk {
  sessionUpdate: 'user_message_chunk';
  content: TextContent;
  /** The document (1-based lines of the selection) the prompt was asked from. */
  context?: { path: string; firstLine?: number; lastLine?: number };
}

export interface ToolCallRegistered {
  sessionUpdate: 'tool_call';
  toolCallId: string;
  title: string;
  kind: ToolKind;
  status: 'pending';
  rawInput: Record<string, unknown>;
  /** Set on a call of a `task` sub-agent: the task call's id (its own id is `<task>/<id>`). */
  parentToolCallId?: string;
}

export interface ToolCallUpdate {
  sessionUpdate: 'tool_call_update';
  toolCallId: string;
  status: ToolStatus;
  phase: ToolPhase;
  durationMs?: number;
  content?: (ContentItem | DiffItem)[];
  rawOutput?: { isError: boolean; text: string; exitCode?: number };
  /** Set on a call of a `task` sub-agent: the task call's id. */
  parentToolCallId?: string;
}

export interface UsageUpdate {
  sessionUpdate: 'usage_update';
  /** Totals of the turn. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  /** What the conversation holds now, and the model's window. */
  contextTokens?: number;
  contextWindow?: number;
  /** Where the window figure came from (`Ollama runtime`, `llama.cpp n_ctx`, `configured`…). */
  contextWindowSource?: string;
  /** Totals of the session. */
  sessionInputTokens?: number;
  sessionOutputTokens?: number;
  sessionCacheReadTokens?: number;
}

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

export interface InstructionsLoadedUpdate {
  sessionUpdate: 'instructions_loaded';
  paths: string[];
  truncated?: boolean;
}

export interface ErrorUpdate {
  sessionUpdate: 'error';
  message: string;
}

/** Something the user should know that does not stop the turn (the session cannot be saved). */
export interface WarningUpdate {
  sessionUpdate: 'warning';
  message: string;
}

export interface TurnEndUpdate {
  sessionUpdate: 'turn_end';
  stopReason: StopReason;
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
  | TurnEndUpdate;

export interface SessionUpdateParams {
  sessionId: string;
  turnId: string;
  update: SessionUpdate;
}

/** The `optionId`s of the approval actions in `window/showMessageRequest`. */
export type ApprovalOptionId = 'allow_once' | 'allow_always' | 'reject_once';

/**
 * The ink-ls wire protocol as the extension uses it. Method names, error codes and every
 * `ink/*` payload come from `protocol.generated.ts` (generated from protocol.schema.json by
 * scripts/gen-protocol); only the client's own shapes (settings, capabilities) are written
 * here. Types and constants only: no `vscode` import, no behaviour.
 */

export * from './protocol.generated';

import type { ToolCallUpdate } from './protocol.generated';

/** The `phase` of a `tool_call_update`. */
export type ToolPhase = ToolCallUpdate['phase'];

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
    maxConcurrentRequests?: number;
  };
  approval: ApprovalMode;
  approvalTimeoutSeconds?: number;
  /** Permission rules, a settings file's `permissions` shape. */
  permissions?: Record<string, unknown>;
  /** Hooks, a settings file's `hooks` shape. */
  hooks?: Record<string, unknown>;
  trustWorkspace?: boolean;
  /** Checkpoint settings: only the keys set away from the defaults. */
  checkpoints?: { enabled?: boolean; maxFileMb?: number; maxAgeDays?: number; maxStoreMb?: number };
}

/** `capabilities.experimental.ink` announced by this client. */
export interface ClientInkCapabilities {
  reviewsApplyEdit: boolean;
  diagnostics: boolean;
  /** Answers `ink/languageFeatures` from VS Code's own language features (intel.ts). */
  languageFeatures?: boolean;
}

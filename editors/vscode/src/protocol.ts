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

export type ApprovalMode = 'ask' | 'auto' | 'readonly';

/** `initializationOptions.ink` and `settings.ink` of `workspace/didChangeConfiguration`. */
export interface InkSettings {
  model: {
    baseUrl?: string;
    model?: string;
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
}

/** `capabilities.experimental.ink` announced by this client. */
export interface ClientInkCapabilities {
  reviewsApplyEdit: boolean;
  diagnostics: boolean;
}

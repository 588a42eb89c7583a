/**
 * Turns the extension's flat settings (`ink.*` in package.json) into the server's
 * `initializationOptions.ink` shape. Pure: no `vscode` import; reading the configuration
 * happens in settings.ts. Empty strings mean "use the server's default" and are left out.
 */

import type { ApprovalMode, InkSettings } from './protocol';

/** The `ink.*` settings as read from VS Code (see package.json `contributes.configuration`). */
export interface RawSettings {
  serverPath: string;
  baseUrl: string;
  model: string;
  apiKeyEnv: string;
  vision: boolean;
  maxTokens: number | null;
  requestTimeout: number;
  maxRetries: number;
  contextWindow: number | null;
  compactThreshold: number;
  approval: string;
  approvalTimeoutSeconds: number;
}

export const DEFAULT_SERVER_PATH = 'ink-ls';
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 600;
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 600;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_COMPACT_THRESHOLD = 0.8;

const APPROVAL_MODES: readonly ApprovalMode[] = ['ask', 'auto', 'readonly'];

/** True when `value` is one of the approval modes the server knows. */
export function isApprovalMode(value: string): value is ApprovalMode {
  return (APPROVAL_MODES as readonly string[]).includes(value);
}

/**
 * The server settings for `raw`. An unknown approval mode is passed through unchanged so the
 * server names it in its one warning (it falls back to `ask`), rather than hiding the typo.
 */
export function toInkSettings(raw: RawSettings): InkSettings {
  const model: InkSettings['model'] = {};
  const baseUrl = raw.baseUrl.trim();
  if (baseUrl !== '') {
    model.baseUrl = baseUrl;
  }
  const name = raw.model.trim();
  if (name !== '') {
    model.model = name;
  }
  const apiKeyEnv = raw.apiKeyEnv.trim();
  if (apiKeyEnv !== '') {
    model.apiKeyEnv = apiKeyEnv;
  }
  if (raw.vision) {
    model.vision = true;
  }
  if (raw.maxTokens !== null) {
    model.maxTokens = raw.maxTokens;
  }
  // Defaults are left to the server, so a settings file stays valid if they change there.
  if (raw.requestTimeout !== DEFAULT_REQUEST_TIMEOUT_SECONDS) {
    model.requestTimeout = raw.requestTimeout;
  }
  if (raw.maxRetries !== DEFAULT_MAX_RETRIES) {
    model.maxRetries = raw.maxRetries;
  }
  if (raw.contextWindow !== null) {
    model.contextWindow = raw.contextWindow;
  }
  if (raw.compactThreshold !== DEFAULT_COMPACT_THRESHOLD) {
    model.compactThreshold = raw.compactThreshold;
  }
  const settings: InkSettings = { model, approval: raw.approval as ApprovalMode };
  if (raw.approvalTimeoutSeconds !== DEFAULT_APPROVAL_TIMEOUT_SECONDS) {
    settings.approvalTimeoutSeconds = raw.approvalTimeoutSeconds;
  }
  return settings;
}

/** The command that starts the server: a configured path, else `ink-ls` from PATH. */
export function serverCommand(raw: Pick<RawSettings, 'serverPath'>): string {
  const path = raw.serverPath.trim();
  return path === '' ? DEFAULT_SERVER_PATH : path;
}

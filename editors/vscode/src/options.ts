/**
 * Turns the extension's flat settings (`ink.*` in package.json) into the server's
 * `initializationOptions.ink` shape. Pure: no `vscode` import; reading the configuration
 * happens in settings.ts. Empty strings mean "use the server's default" and are left out.
 */

import type { ApprovalMode, InkSettings, ModelProvider } from './protocol';

/** The `ink.*` settings as read from VS Code (see package.json `contributes.configuration`). */
export interface RawSettings {
  /** `ink.server.path`. */
  serverPath: string;
  /** `ink.serverPath`, the deprecated name of the same setting (read when the new one is empty). */
  legacyServerPath: string;
  baseUrl: string;
  model: string;
  /** `ink.model.provider`: empty, or one of the provider names (passed on unchecked). */
  provider: string;
  apiKeyEnv: string;
  vision: boolean;
  maxTokens: number | null;
  requestTimeout: number;
  maxRetries: number;
  contextWindow: number | null;
  compactThreshold: number;
  /** `ink.model.maxConcurrentRequests` (null: no limit). */
  maxConcurrentRequests?: number | null;
  approval: string;
  approvalTimeoutSeconds: number;
  /** `ink.permissions` (an empty object: none). */
  permissions?: Record<string, unknown>;
  /** `ink.hooks` (an empty object: none). */
  hooks?: Record<string, unknown>;
  /** `ink.trustWorkspace`: true / false states the trust of the workspace's files; null asks. */
  trustWorkspace: boolean | null;
  /** `ink.checkpoints.*` (package.json's defaults when unset). */
  checkpoints?: CheckpointOptions;
}

export const DEFAULT_SERVER_PATH = 'ink-ls';
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 600;
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 600;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_COMPACT_THRESHOLD = 0.8;

const APPROVAL_MODES: readonly ApprovalMode[] = ['ask', 'auto', 'readonly', 'plan'];

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
  const provider = raw.provider.trim();
  if (provider !== '') {
    model.provider = provider as ModelProvider;
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
  if (raw.maxConcurrentRequests !== undefined && raw.maxConcurrentRequests !== null) {
    model.maxConcurrentRequests = raw.maxConcurrentRequests;
  }
  const settings: InkSettings = { model, approval: raw.approval as ApprovalMode };
  if (raw.approvalTimeoutSeconds !== DEFAULT_APPROVAL_TIMEOUT_SECONDS) {
    settings.approvalTimeoutSeconds = raw.approvalTimeoutSeconds;
  }
  if (raw.permissions && Object.keys(raw.permissions).length > 0) {
    settings.permissions = raw.permissions;
  }
  if (raw.hooks && Object.keys(raw.hooks).length > 0) {
    settings.hooks = raw.hooks;
  }
  if (raw.trustWorkspace !== null) {
    settings.trustWorkspace = raw.trustWorkspace;
  }
  const checkpoints = changedCheckpoints(raw.checkpoints);
  if (checkpoints !== undefined) {
    settings.checkpoints = checkpoints;
  }
  return settings;
}

/** `ink.checkpoints.*` on the wire (`checkpoints`, protocol.md), as the server names them. */
export interface CheckpointOptions {
  enabled: boolean;
  maxFileMb: number;
  maxAgeDays: number;
  maxStoreMb: number;
}

/** package.json's defaults (the server's too). */
export const CHECKPOINT_DEFAULTS: CheckpointOptions = { enabled: true, maxFileMb: 10, maxAgeDays: 30, maxStoreMb: 2048 };

/** The keys set away from the defaults (so the server's `INK_CHECKPOINT*` still apply to the
 * others); undefined when none is. */
function changedCheckpoints(raw: CheckpointOptions | undefined): Partial<CheckpointOptions> | undefined {
  if (raw === undefined) {
    return undefined;
  }
  const out: Partial<CheckpointOptions> = {};
  for (const key of Object.keys(CHECKPOINT_DEFAULTS) as (keyof CheckpointOptions)[]) {
    if (raw[key] !== CHECKPOINT_DEFAULTS[key]) {
      (out as Record<string, unknown>)[key] = raw[key];
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export const INSTALL_HINT =
  'Install it with `pipx install ink-ls` (or `uv tool install ink-ls`), or set `ink.server.path` to the ink-ls executable.';

/** How the server is started, or why it cannot be. */
export type ServerLookup = { command: string } | { error: string };

/**
 * The command that starts the server: `ink.server.path` (else the deprecated `ink.serverPath`),
 * else `ink-ls` on PATH, else an error naming the install command. A configured bare name is
 * looked up on PATH too. `isFile` and `pathEnv` are injected for tests.
 */
export function resolveServer(
  raw: Pick<RawSettings, 'serverPath' | 'legacyServerPath'>,
  isFile: (file: string) => boolean,
  pathEnv: string | undefined,
): ServerLookup {
  const configured = raw.serverPath.trim() || raw.legacyServerPath.trim();
  if (configured.includes('/')) {
    return isFile(configured)
      ? { command: configured }
      : { error: `ink-ls was not found at ${configured} (setting ink.server.path). ${INSTALL_HINT}` };
  }
  const name = configured === '' ? DEFAULT_SERVER_PATH : configured;
  for (const dir of (pathEnv ?? '').split(':')) {
    if (dir !== '' && isFile(`${dir.replace(/\/+$/, '')}/${name}`)) {
      return { command: `${dir.replace(/\/+$/, '')}/${name}` };
    }
  }
  return { error: `${name} was not found on PATH. ${INSTALL_HINT}` };
}

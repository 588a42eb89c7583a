/**
 * Reads the `ink.*` settings from the VS Code configuration. Only reading lives here; the
 * mapping to the wire shape is in options.ts so it can be tested without VS Code.
 */

import * as vscode from 'vscode';

import { CHECKPOINT_DEFAULTS, type RawSettings, toInkSettings } from './options';
import type { InkSettings } from './protocol';

export const SECTION = 'ink';

/** The current `ink.*` settings, with package.json's defaults for unset keys. */
export function readRawSettings(): RawSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    serverPath: config.get<string>('server.path', ''),
    legacyServerPath: config.get<string>('serverPath', ''),
    baseUrl: config.get<string>('model.baseUrl', ''),
    model: config.get<string>('model.name', ''),
    provider: config.get<string>('model.provider', ''),
    apiKeyEnv: config.get<string>('model.apiKeyEnv', 'OPENAI_API_KEY'),
    vision: config.get<boolean>('model.vision', false),
    maxTokens: config.get<number | null>('model.maxTokens', null),
    requestTimeout: config.get<number>('model.requestTimeout', 600),
    maxRetries: config.get<number>('model.maxRetries', 3),
    contextWindow: config.get<number | null>('model.contextWindow', null),
    compactThreshold: config.get<number>('model.compactThreshold', 0.8),
    maxConcurrentRequests: config.get<number | null>('model.maxConcurrentRequests', null),
    approval: config.get<string>('approval', 'ask'),
    approvalTimeoutSeconds: config.get<number>('approvalTimeoutSeconds', 600),
    permissions: config.get<Record<string, unknown>>('permissions', {}),
    hooks: config.get<Record<string, unknown>>('hooks', {}),
    trustWorkspace: config.get<boolean | null>('trustWorkspace', null),
    checkpoints: {
      enabled: config.get<boolean>('checkpoints.enabled', true),
      maxFileMb: config.get<number>('checkpoints.maxFileSizeMb', CHECKPOINT_DEFAULTS.maxFileMb),
      maxAgeDays: config.get<number>('checkpoints.maxAgeDays', CHECKPOINT_DEFAULTS.maxAgeDays),
      maxStoreMb: config.get<number>('checkpoints.maxStoreMb', CHECKPOINT_DEFAULTS.maxStoreMb),
    },
  };
}

/** The server settings (`initializationOptions.ink`) for the current configuration. */
export function readInkSettings(): InkSettings {
  return toInkSettings(readRawSettings());
}

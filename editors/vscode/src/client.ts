/**
 * The language client for ink-ls: how the server is started (`<ink.serverPath> --stdio`), what
 * this client announces (`experimental.ink.reviewsApplyEdit`, `diagnostics`, `languageFeatures`), the settings it sends, and the
 * hooks for the server's requests (edit review, or no review for an edit the server marks
 * pre-approved; command approval, see approvals.ts) and notifications
 * (`ink/session/update`). No commands and no turn logic: see session.ts.
 */

import fs from 'node:fs';

import * as vscode from 'vscode';
import {
  type CancellationToken,
  type ClientCapabilities,
  DidChangeConfigurationNotification,
  type FeatureState,
  LanguageClient,
  type LanguageClientOptions,
  type MessageActionItem,
  type ServerOptions,
  ShowMessageRequest,
  type ShowMessageRequestParams,
  type StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';

import { connectDiagnostics } from './diagnostics';
import { isPreApproved } from './edits';
import { connectLanguageFeatures } from './intel';
import { resolveServer } from './options';
import { type ClientInkCapabilities, type InkSettings, SESSION_UPDATE, type SessionUpdateParams } from './protocol';
import type { EditReviewer } from './review';
import { readInkSettings, readRawSettings } from './settings';

export const CLIENT_ID = 'ink';
export const CLIENT_NAME = 'Ink';

/** Announces `capabilities.experimental.ink`: this client reviews every edit itself. */
class InkCapabilitiesFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const ink: ClientInkCapabilities = { reviewsApplyEdit: true, diagnostics: true, languageFeatures: true };
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, ink };
  }

  initialize(): void {}

  getState(): FeatureState {
    return { kind: 'static' };
  }

  clear(): void {}
}

export interface ClientHooks {
  reviewer: EditReviewer;
  onUpdate: (params: SessionUpdateParams) => void;
  outputChannel: vscode.LogOutputChannel;
  /** Answers `window/showMessageRequest` (command approval): the modal, or a panel card. */
  askCommand: (params: ShowMessageRequestParams, token: CancellationToken) => Promise<MessageActionItem | null>;
  /** Disposables that live as long as the extension (the diagnostics listener). */
  subscriptions: vscode.Disposable[];
}

/** Whether `file` is an executable file. */
function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Builds (does not start) the client for the current settings. Throws with a message that
 * names the install command when ink-ls cannot be found.
 */
export function createClient(hooks: ClientHooks): LanguageClient {
  const server = resolveServer(readRawSettings(), isExecutable, process.env.PATH);
  if ('error' in server) {
    throw new Error(server.error);
  }
  const serverOptions: ServerOptions = {
    command: server.command,
    // TransportKind.stdio makes the client append `--stdio` to the arguments.
    transport: TransportKind.stdio,
    options: { env: process.env },
  };
  const clientOptions: LanguageClientOptions = {
    // Open files are synced so the agent reads unsaved buffers, as the user sees them.
    documentSelector: [{ scheme: 'file' }],
    initializationOptions: () => ({ ink: readInkSettings() }),
    outputChannel: hooks.outputChannel,
    middleware: {
      workspace: {
        // approval mode `auto`: the server marks the edit approved; the buffer still gets it
        handleApplyEdit: (params, next) =>
          isPreApproved(params) ? hooks.reviewer.applyApproved(params, next) : hooks.reviewer.review(params, next),
      },
    },
  };
  const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  client.registerFeature(new InkCapabilitiesFeature());
  // Registered before start, so it replaces the client's default (a toast) for this request.
  client.onRequest(ShowMessageRequest.type, hooks.askCommand);
  hooks.reviewer.watchWithdrawals(client); // a withdrawn edit review closes
  client.onNotification(SESSION_UPDATE, (params: SessionUpdateParams) => hooks.onUpdate(params));
  hooks.subscriptions.push(connectDiagnostics(client));
  connectLanguageFeatures(client);
  return client;
}

/** Sends the current settings to a running server (`workspace/didChangeConfiguration`). */
export async function sendSettings(client: LanguageClient): Promise<InkSettings> {
  // A cleared `ink.permissions` / `ink.hooks` is sent as {}: absent, the server would keep them.
  const ink: InkSettings = { permissions: {}, hooks: {}, ...readInkSettings() };
  await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { ink } });
  return ink;
}

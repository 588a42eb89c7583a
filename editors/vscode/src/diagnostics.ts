/**
 * The editor's diagnostics for ink-ls (`experimental.ink.diagnostics`): answers the server's
 * `ink/diagnostics` with `vscode.languages.getDiagnostics` (every extension's problems) and
 * tells it when they change (`ink/diagnosticsChanged`). The conversion to the wire shape is in
 * diagnosticsWire.ts (pure, tested without VS Code).
 */

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import { toWire } from './diagnosticsWire';
import { DIAGNOSTICS, DIAGNOSTICS_CHANGED, type DiagnosticsParams, type DiagnosticsResult, type FileDiagnostics } from './protocol';

async function fileExists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

async function itemFor(uri: vscode.Uri, load: boolean): Promise<FileDiagnostics> {
  let doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (doc === undefined && load && (await fileExists(uri))) {
    // opened (not shown) so the language features of its language validate it
    doc = await vscode.workspace.openTextDocument(uri);
  }
  const item: FileDiagnostics = {
    uri: uri.toString(),
    diagnostics: vscode.languages.getDiagnostics(uri).map(toWire),
    // a document of a real language has language features that report on it
    watched: doc !== undefined && doc.languageId !== 'plaintext',
  };
  if (doc !== undefined) {
    item.version = doc.version;
  }
  return item;
}

/** Handler of `ink/diagnostics`. */
export async function answerDiagnostics(params: DiagnosticsParams): Promise<DiagnosticsResult> {
  if (params.uris === null || params.uris === undefined) {
    return {
      items: vscode.languages
        .getDiagnostics()
        .filter(([uri, list]) => uri.scheme === 'file' && list.length > 0)
        .map(([uri, list]) => ({ uri: uri.toString(), diagnostics: list.map(toWire), watched: true })),
    };
  }
  const load = params.load === true;
  return { items: await Promise.all(params.uris.map((u) => itemFor(vscode.Uri.parse(u), load))) };
}

/** Wires the request and the change notifications; dispose to stop sending them. */
export function connectDiagnostics(client: LanguageClient): vscode.Disposable {
  client.onRequest(DIAGNOSTICS, answerDiagnostics);
  return vscode.languages.onDidChangeDiagnostics((e) => {
    const uris = e.uris.filter((u) => u.scheme === 'file').map((u) => u.toString());
    if (uris.length > 0 && client.isRunning()) {
      void client.sendNotification(DIAGNOSTICS_CHANGED, { uris });
    }
  });
}

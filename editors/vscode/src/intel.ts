/**
 * The editor's language servers for the agent's `lsp` tool (`experimental.ink.languageFeatures`):
 * answers the server's `ink/languageFeatures` with VS Code's own providers (`vscode.execute*Provider`,
 * call hierarchy, rename), so the agent asks the servers the user already runs. Converting to LSP
 * JSON is in intelWire.ts (pure, tested without VS Code).
 */

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import {
  type CallItemLike,
  type Converter,
  type DocumentSymbolLike,
  type HoverLike,
  type IncomingCallLike,
  isAvailable,
  type LocationLike,
  type LocationLinkLike,
  type OutgoingCallLike,
  type SymbolInformationLike,
  wireDocumentSymbols,
  wireHovers,
  wireIncoming,
  wireLocations,
  wireOutgoing,
  wireSymbolInformation,
  wireWorkspaceEdit,
} from './intelWire';
import { LANGUAGE_FEATURES, type LanguageFeaturesParams, type LanguageFeaturesResult } from './protocol';

/** Languages whose providers have answered once (a symbol provider exists for them). */
const answering = new Set<string>();
/** Languages whose providers were waited for once already (a miss after that is not slowed). */
const waited = new Set<string>();
/** How long the first question of a language waits for its extension's providers to register. */
const ATTACH_WAIT_MS = 15000;
const ATTACH_POLL_MS = 200;

async function run<T>(command: string, ...args: unknown[]): Promise<T[]> {
  return ((await vscode.commands.executeCommand<T[] | undefined>(command, ...args)) ?? []).filter((x) => x !== undefined && x !== null);
}

/**
 * Activates the extensions that declare the document's language (opening a document hidden
 * does not wait for them); whether there is any.
 */
async function activateFor(languageId: string): Promise<boolean> {
  const event = `onLanguage:${languageId}`;
  const declaring = vscode.extensions.all.filter((e) => {
    const pkg = e.packageJSON as { activationEvents?: string[] };
    return (pkg.activationEvents ?? []).includes(event);
  });
  await Promise.all(declaring.filter((e) => !e.isActive).map((e) => Promise.resolve(e.activate()).catch(() => undefined)));
  return declaring.length > 0;
}

/**
 * Whether a document-symbol provider answers for `doc`, retried for up to `waitMs`: an
 * extension registers its providers some time after it is activated (TypeScript's after its
 * server starts), and VS Code has no event for that.
 */
async function hasSymbols(doc: vscode.TextDocument, waitMs = 0): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (!answering.has(doc.languageId)) {
    const symbols = await run<unknown>('vscode.executeDocumentSymbolProvider', doc.uri);
    if (symbols.length > 0) {
      answering.add(doc.languageId);
    } else if (Date.now() >= deadline) {
      return false;
    } else {
      await new Promise((resolve) => setTimeout(resolve, ATTACH_POLL_MS));
    }
  }
  return true;
}

/** The raw LSP result of one operation, and whether the providers said anything. */
async function ask(doc: vscode.TextDocument, params: LanguageFeaturesParams, c: Converter): Promise<{ result: unknown; answered: boolean }> {
  const uri = doc.uri;
  const pos = new vscode.Position(params.position?.line ?? 0, params.position?.character ?? 0);
  switch (params.operation) {
    case 'definition':
    case 'references':
    case 'implementation': {
      const command = {
        definition: 'vscode.executeDefinitionProvider',
        references: 'vscode.executeReferenceProvider',
        implementation: 'vscode.executeImplementationProvider',
      }[params.operation];
      const found = await run<LocationLike | LocationLinkLike>(command, uri, pos);
      return { result: wireLocations(found, c), answered: found.length > 0 };
    }
    case 'hover': {
      const hovers = wireHovers(await run<HoverLike>('vscode.executeHoverProvider', uri, pos));
      return { result: hovers, answered: hovers.length > 0 };
    }
    case 'documentSymbols': {
      const symbols = await run<DocumentSymbolLike | SymbolInformationLike>('vscode.executeDocumentSymbolProvider', uri);
      return { result: wireDocumentSymbols(symbols, c), answered: symbols.length > 0 };
    }
    case 'workspaceSymbols': {
      const symbols = await run<SymbolInformationLike>('vscode.executeWorkspaceSymbolProvider', params.query ?? '');
      return { result: wireSymbolInformation(symbols, c), answered: symbols.length > 0 };
    }
    case 'incomingCalls':
    case 'outgoingCalls': {
      const items = await run<vscode.CallHierarchyItem>('vscode.prepareCallHierarchy', uri, pos);
      const incoming = params.operation === 'incomingCalls';
      const calls: (IncomingCallLike | OutgoingCallLike)[] = [];
      for (const item of items) {
        calls.push(...(await run<IncomingCallLike | OutgoingCallLike>(incoming ? 'vscode.provideIncomingCalls' : 'vscode.provideOutgoingCalls', item)));
      }
      const result = incoming ? wireIncoming(calls as IncomingCallLike[], c) : wireOutgoing(calls as OutgoingCallLike[], c);
      return { result, answered: items.length > 0 };
    }
    case 'rename':
      return rename(uri, pos, params.newName ?? '', c);
  }
}

async function rename(uri: vscode.Uri, pos: vscode.Position, newName: string, c: Converter): Promise<{ result: unknown; answered: boolean }> {
  let edit: vscode.WorkspaceEdit | undefined;
  try {
    edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit | undefined>('vscode.executeDocumentRenameProvider', uri, pos, newName);
  } catch (err) {
    // the provider refused ("You cannot rename this element"): a sentence for the model
    throw new Error(`the editor's rename refused: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (edit === undefined) {
    return { result: null, answered: false };
  }
  return { result: wireWorkspaceEdit(edit.entries(), c), answered: true };
}

/** Handler of `ink/languageFeatures`: VS Code's answer as raw LSP JSON, or `available: false`. */
export async function answerLanguageFeatures(params: LanguageFeaturesParams, c: Converter): Promise<LanguageFeaturesResult> {
  const uri = vscode.Uri.parse(params.textDocument.uri);
  // opened, not shown: the language's providers need the document, the user's tabs stay as they are
  const doc = await vscode.workspace.openTextDocument(uri);
  if (doc.languageId === 'plaintext') {
    return { available: false, result: null };
  }
  const declared = await activateFor(doc.languageId);
  let { result, answered } = await ask(doc, params, c);
  if (!answered && declared && !answering.has(doc.languageId) && !waited.has(doc.languageId)) {
    // the first question of a language may come before its providers exist: wait, ask again
    waited.add(doc.languageId);
    if (await hasSymbols(doc, ATTACH_WAIT_MS)) {
      ({ result, answered } = await ask(doc, params, c));
    }
  }
  const available = await isAvailable(doc.languageId, answered, () => hasSymbols(doc));
  return { available, result: available ? result : null };
}

/** Wires the request to the running client. */
export function connectLanguageFeatures(client: LanguageClient): void {
  const c2p = client.code2ProtocolConverter;
  // the objects are VS Code's own (intelWire.ts reads them structurally)
  const converter: Converter = {
    asUri: (u) => c2p.asUri(u as vscode.Uri),
    asSymbolKind: (k) => c2p.asSymbolKind(k),
    asCallHierarchyItem: (item: CallItemLike) => c2p.asCallHierarchyItem(item as vscode.CallHierarchyItem),
  };
  client.onRequest(LANGUAGE_FEATURES, (params: LanguageFeaturesParams) => answerLanguageFeatures(params, converter));
}

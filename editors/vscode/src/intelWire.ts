/**
 * VS Code's language-feature results (locations, hovers, symbols, calls, rename edits) in LSP's
 * JSON shapes for `ink/languageFeatures`. Pure: no `vscode` import (the language client's
 * `code2ProtocolConverter` comes in as `Converter`), so it is tested under node:test.
 */

import type {
  CallHierarchyIncomingCall,
  CallHierarchyItem,
  CallHierarchyOutgoingCall,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  Range,
  SymbolInformation,
  SymbolKind,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageclient';

/** The plain fields of `vscode.Position` / `vscode.Range` / `vscode.Uri` read here. */
export interface PositionLike {
  line: number;
  character: number;
}
export interface RangeLike {
  start: PositionLike;
  end: PositionLike;
}
export interface UriLike {
  toString(): string;
}

export interface LocationLike {
  uri: UriLike;
  range: RangeLike;
}
export interface LocationLinkLike {
  originSelectionRange?: RangeLike;
  targetUri: UriLike;
  targetRange: RangeLike;
  targetSelectionRange?: RangeLike;
}
/** `vscode.MarkdownString` (value only) or a `MarkedString`. */
export type MarkedLike = string | { value: string; language?: string };
export interface HoverLike {
  contents: MarkedLike[];
  range?: RangeLike;
}
export interface DocumentSymbolLike {
  name: string;
  detail?: string;
  kind: number;
  range: RangeLike;
  selectionRange: RangeLike;
  children: DocumentSymbolLike[];
}
export interface SymbolInformationLike {
  name: string;
  containerName?: string;
  kind: number;
  location: LocationLike;
}
export interface CallItemLike {
  name: string;
  kind: number;
  uri: UriLike;
  range: RangeLike;
  selectionRange: RangeLike;
}
export interface IncomingCallLike {
  from: CallItemLike;
  fromRanges: RangeLike[];
}
export interface OutgoingCallLike {
  to: CallItemLike;
  fromRanges: RangeLike[];
}
export interface TextEditLike {
  range: RangeLike;
  newText: string;
}

/** What this module needs of the language client's `code2ProtocolConverter`. */
export interface Converter {
  asUri(uri: UriLike): string;
  asSymbolKind(kind: number): SymbolKind;
  asCallHierarchyItem(item: CallItemLike): CallHierarchyItem;
}

/** A range as LSP JSON (plain numbers: a `vscode.Range` serialises with extra fields). */
export function wireRange(r: RangeLike): Range {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

/** Definitions, references, implementations: `Location`s, or `LocationLink`s as the provider gave them. */
export function wireLocations(items: readonly (LocationLike | LocationLinkLike)[], c: Converter): (Location | LocationLink)[] {
  return items.map((item) => {
    if ('targetUri' in item) {
      const link: LocationLink = {
        targetUri: c.asUri(item.targetUri),
        targetRange: wireRange(item.targetRange),
        targetSelectionRange: wireRange(item.targetSelectionRange ?? item.targetRange),
      };
      if (item.originSelectionRange !== undefined) {
        link.originSelectionRange = wireRange(item.originSelectionRange);
      }
      return link;
    }
    return { uri: c.asUri(item.uri), range: wireRange(item.range) };
  });
}

function markdown(part: MarkedLike): string {
  if (typeof part === 'string') {
    return part;
  }
  return part.language === undefined ? part.value : `\`\`\`${part.language}\n${part.value}\n\`\`\``;
}

/** Hovers (one per provider) with their contents as one markdown `MarkupContent` each; empty ones dropped. */
export function wireHovers(hovers: readonly HoverLike[]): Hover[] {
  const out: Hover[] = [];
  for (const hover of hovers) {
    const value = hover.contents.map(markdown).filter((s) => s.trim() !== '').join('\n\n');
    if (value !== '') {
      const h: Hover = { contents: { kind: 'markdown', value } };
      if (hover.range !== undefined) {
        h.range = wireRange(hover.range);
      }
      out.push(h);
    }
  }
  return out;
}

function isDocumentSymbol(s: DocumentSymbolLike | SymbolInformationLike): s is DocumentSymbolLike {
  // VS Code hands out objects that are both (a SymbolInformation with children): the tree wins
  return 'children' in s && 'selectionRange' in s;
}

/** Document symbols: the tree (`DocumentSymbol[]`) when the provider gave one, else flat `SymbolInformation[]`. */
export function wireDocumentSymbols(items: readonly (DocumentSymbolLike | SymbolInformationLike)[], c: Converter): DocumentSymbol[] | SymbolInformation[] {
  if (items.length > 0 && items.every(isDocumentSymbol)) {
    const tree = (s: DocumentSymbolLike): DocumentSymbol => ({
      name: s.name,
      detail: s.detail ?? '',
      kind: c.asSymbolKind(s.kind),
      range: wireRange(s.range),
      selectionRange: wireRange(s.selectionRange),
      children: s.children.map(tree),
    });
    return items.map(tree);
  }
  return wireSymbolInformation(items.filter((s): s is SymbolInformationLike => 'location' in s), c);
}

/** LSP's Method, Constructor and Function kinds. */
const CALLABLE: ReadonlySet<number> = new Set([6, 9, 12]);

/**
 * The symbol's name: VS Code's TypeScript features label functions and methods `name()` in
 * workspace symbols (a display label; the server's own name has no parentheses, and the other
 * front ends show that one).
 */
function symbolName(name: string, kind: SymbolKind): string {
  return CALLABLE.has(kind) && name.endsWith('()') && name.length > 2 ? name.slice(0, -2) : name;
}

/** Workspace symbols (and flat document symbols) as `SymbolInformation[]`. */
export function wireSymbolInformation(items: readonly SymbolInformationLike[], c: Converter): SymbolInformation[] {
  return items.map((s) => {
    const kind = c.asSymbolKind(s.kind);
    const info: SymbolInformation = {
      name: symbolName(s.name, kind),
      kind,
      location: { uri: c.asUri(s.location.uri), range: wireRange(s.location.range) },
    };
    if (s.containerName !== undefined && s.containerName !== '') {
      info.containerName = s.containerName;
    }
    return info;
  });
}

/** Callers of the prepared item(s). */
export function wireIncoming(calls: readonly IncomingCallLike[], c: Converter): CallHierarchyIncomingCall[] {
  return calls.map((call) => ({ from: c.asCallHierarchyItem(call.from), fromRanges: call.fromRanges.map(wireRange) }));
}

/** Callees of the prepared item(s). */
export function wireOutgoing(calls: readonly OutgoingCallLike[], c: Converter): CallHierarchyOutgoingCall[] {
  return calls.map((call) => ({ to: c.asCallHierarchyItem(call.to), fromRanges: call.fromRanges.map(wireRange) }));
}

/** A rename's `vscode.WorkspaceEdit` (its `entries()`) as `{changes: {uri: TextEdit[]}}`. */
export function wireWorkspaceEdit(entries: readonly [UriLike, readonly TextEditLike[]][], c: Converter): WorkspaceEdit {
  const changes: Record<string, TextEdit[]> = {};
  for (const [uri, edits] of entries) {
    const key = c.asUri(uri);
    changes[key] = [...(changes[key] ?? []), ...edits.map((e) => ({ range: wireRange(e.range), newText: e.newText }))];
  }
  return { changes };
}

/**
 * Whether VS Code answers for a file: a language other than plain text, and either the
 * question got an answer or some document-symbol provider answers for the file (VS Code's
 * `execute*Provider` commands cannot tell "no provider" from "nothing found").
 */
export function isAvailable(languageId: string, answered: boolean, hasSymbols: () => Promise<boolean>): Promise<boolean> {
  if (languageId === 'plaintext') {
    return Promise.resolve(false);
  }
  return answered ? Promise.resolve(true) : hasSymbols();
}

/**
 * Diff building for edit approval: which files a `workspace/applyEdit` touches, the text each
 * would have afterwards, and a copy of the edit without "needs confirmation" annotations (so
 * VS Code applies it directly instead of opening its Refactor Preview). Pure: no `vscode`
 * import, no file access; the caller supplies the current texts.
 */

import type {
  ApplyWorkspaceEditParams,
  CreateFile,
  Position,
  TextDocumentEdit,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol';

/** One file the edit changes, with the LSP text edits for it in the order they were sent. */
export interface FileProposal {
  uri: string;
  /** The edit creates the file (a `CreateFile` operation comes first). */
  create: boolean;
  edits: TextEdit[];
}

/** What an edit does: file changes that can be shown as diffs, and operations that cannot. */
export interface EditPlan {
  files: FileProposal[];
  /** Human-readable descriptions of renames and deletes (not reviewable as a diff). */
  unsupported: string[];
}

function isTextDocumentEdit(change: unknown): change is TextDocumentEdit {
  return typeof change === 'object' && change !== null && 'textDocument' in change && 'edits' in change;
}

function isCreateFile(change: unknown): change is CreateFile {
  return typeof change === 'object' && change !== null && (change as { kind?: unknown }).kind === 'create';
}

/** Groups the changes of `edit` by file (order of first appearance kept). */
export function planEdit(edit: WorkspaceEdit): EditPlan {
  const files = new Map<string, FileProposal>();
  const unsupported: string[] = [];
  const fileFor = (uri: string): FileProposal => {
    let file = files.get(uri);
    if (file === undefined) {
      file = { uri, create: false, edits: [] };
      files.set(uri, file);
    }
    return file;
  };
  if (edit.documentChanges !== undefined) {
    for (const change of edit.documentChanges) {
      if (isTextDocumentEdit(change)) {
        // AnnotatedTextEdit and SnippetTextEdit both carry range/newText; keep only those.
        for (const e of change.edits) {
          fileFor(change.textDocument.uri).edits.push({ range: e.range, newText: 'newText' in e ? e.newText : e.snippet.value });
        }
      } else if (isCreateFile(change)) {
        fileFor(change.uri).create = true;
      } else if (change.kind === 'rename') {
        unsupported.push(`rename ${change.oldUri} to ${change.newUri}`);
      } else {
        unsupported.push(`delete ${change.uri}`);
      }
    }
  } else if (edit.changes !== undefined) {
    for (const [uri, edits] of Object.entries(edit.changes)) {
      fileFor(uri).edits.push(...edits.map((e) => ({ range: e.range, newText: e.newText })));
    }
  }
  return { files: [...files.values()], unsupported };
}

/** Offsets where each line of `text` starts; LSP counts `\n`, `\r\n` and `\r` as line ends. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) {
        i++;
      }
      starts.push(i + 1);
    } else if (ch === 10 /* \n */) {
      starts.push(i + 1);
    }
  }
  return starts;
}

/**
 * The UTF-16 offset of `pos` in `text` (VS Code's position encoding). Like VS Code, a
 * character past the end of a line clamps to the line's end, a line past the end to the end.
 */
export function offsetAt(text: string, pos: Position, starts: number[] = lineStarts(text)): number {
  if (pos.line >= starts.length) {
    return text.length;
  }
  const start = starts[pos.line];
  let end = pos.line + 1 < starts.length ? starts[pos.line + 1] : text.length;
  // The line's content ends before its line break.
  while (end > start && (text.charCodeAt(end - 1) === 10 || text.charCodeAt(end - 1) === 13)) {
    end--;
  }
  return Math.min(start + Math.max(pos.character, 0), end);
}

/**
 * `text` with `edits` applied. LSP edits all refer to the original text and must not overlap;
 * edits at the same position are applied in the order given.
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = lineStarts(text);
  const spans = edits.map((e, index) => ({
    start: offsetAt(text, e.range.start, starts),
    end: offsetAt(text, e.range.end, starts),
    newText: e.newText,
    index,
  }));
  spans.sort((a, b) => a.start - b.start || a.end - b.end || a.index - b.index);
  let out = '';
  let cursor = 0;
  for (const span of spans) {
    if (span.start < cursor) {
      throw new Error('overlapping edits');
    }
    out += text.slice(cursor, span.start) + span.newText;
    cursor = span.end;
  }
  return out + text.slice(cursor);
}

/**
 * A copy of `params` whose edits carry no change annotations. VS Code treats an annotation
 * with `needsConfirmation` as "show the Refactor Preview with the edit unticked"; our own diff
 * review has already asked the user, so the accepted edit must apply as is.
 */
export function withoutConfirmation(params: ApplyWorkspaceEditParams): ApplyWorkspaceEditParams {
  const edit: WorkspaceEdit = {};
  if (params.edit.documentChanges !== undefined) {
    edit.documentChanges = params.edit.documentChanges.map((change) => {
      if (isTextDocumentEdit(change)) {
        return {
          textDocument: change.textDocument,
          edits: change.edits.map((e) => ('newText' in e ? { range: e.range, newText: e.newText } : e)),
        };
      }
      const { annotationId: _dropped, ...rest } = change;
      return rest;
    });
  }
  if (params.edit.changes !== undefined) {
    edit.changes = params.edit.changes;
  }
  return { label: params.label, edit };
}

/**
 * True when ink-ls marked the edit as approved already (`"ink": {"approved": true}` beside
 * `label` and `edit`, approval mode `auto`; protocol.md, "File changes"): it is applied and
 * saved without a review.
 */
export function isPreApproved(params: ApplyWorkspaceEditParams): boolean {
  const ink: unknown = (params as { ink?: unknown }).ink;
  return typeof ink === 'object' && ink !== null && (ink as { approved?: unknown }).approved === true;
}

/** A short summary such as `2 lines removed, 3 added` between two texts (by line count). */
export function summarizeChange(oldText: string, newText: string): string {
  // A final line break ends the last line; it does not start another one.
  const lines = (t: string): string[] => (t === '' ? [] : t.replace(/(\r\n|\r|\n)$/, '').split(/\r\n|\r|\n/));
  const oldLines = lines(oldText);
  const newLines = lines(newText);
  // Strip the common head and tail: what is left is what changed.
  let head = 0;
  while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) {
    head++;
  }
  let tail = 0;
  while (
    tail < oldLines.length - head &&
    tail < newLines.length - head &&
    oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]
  ) {
    tail++;
  }
  const removed = oldLines.length - head - tail;
  const added = newLines.length - head - tail;
  const plural = (n: number): string => (n === 1 ? 'line' : 'lines');
  if (removed === 0 && added === 0) {
    return oldText === newText ? 'no change' : 'line breaks changed';
  }
  if (removed === 0) {
    return `${added} ${plural(added)} added`;
  }
  if (added === 0) {
    return `${removed} ${plural(removed)} removed`;
  }
  return `${removed} ${plural(removed)} removed, ${added} added`;
}

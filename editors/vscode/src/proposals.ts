/**
 * Edited proposals (protocol.md, "Edited proposals"): the user may change the proposed side of
 * an edit's diff before accepting. Pure: the params that apply the user's version instead of
 * the server's edit, and the answer that tells ink-ls so. No `vscode` import.
 */

import type {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditResult,
  CreateFile,
  DeleteFile,
  Position,
  RenameFile,
  TextDocumentEdit,
  TextEdit,
} from 'vscode-languageserver-protocol';

type Change = TextDocumentEdit | CreateFile | RenameFile | DeleteFile;

/** The position just past the end of `text` (UTF-16, lines split at `\r\n`, `\n`, `\r`). */
export function endOf(text: string): Position {
  const lines = text.split(/\r\n|\n|\r/);
  return { line: lines.length - 1, character: lines[lines.length - 1].length };
}

/** One whole-document replacement of `current` by `replacement`. */
function whole(current: string, replacement: string): TextEdit {
  return { range: { start: { line: 0, character: 0 }, end: endOf(current) }, newText: replacement };
}

/**
 * A copy of `params` whose edits of each file in `users` (uri → the user's version, with the
 * text the edits apply to) replace that file's text by the user's version. Creates, versions
 * and the other files stay as sent.
 */
export function withUserTexts(
  params: ApplyWorkspaceEditParams,
  users: ReadonlyMap<string, { current: string; text: string }>,
): ApplyWorkspaceEditParams {
  const edit = { ...params.edit };
  if (edit.documentChanges !== undefined) {
    const done = new Set<string>();
    edit.documentChanges = edit.documentChanges.flatMap((change): Change[] => {
      if (!('textDocument' in change)) {
        return [change];
      }
      const user = users.get(change.textDocument.uri);
      if (user === undefined) {
        return [change];
      }
      if (done.has(change.textDocument.uri)) {
        return []; // a later batch of the same file: the one replacement covers it
      }
      done.add(change.textDocument.uri);
      const replaced: TextDocumentEdit = { textDocument: change.textDocument, edits: [whole(user.current, user.text)] };
      return [replaced];
    });
  }
  if (edit.changes !== undefined) {
    const changes: Record<string, TextEdit[]> = {};
    for (const [uri, edits] of Object.entries(edit.changes)) {
      const user = users.get(uri);
      changes[uri] = user === undefined ? edits : [whole(user.current, user.text)];
    }
    edit.changes = changes;
  }
  return { ...params, edit };
}

/**
 * The answer to an accepted review: `ink.edited` when the user's version of some files was
 * applied, with `ink.files` naming those files (the others hold the proposal).
 */
export function acceptedAnswer(result: ApplyWorkspaceEditResult, editedUris: readonly string[]): ApplyWorkspaceEditResult {
  if (!result.applied || editedUris.length === 0) {
    return result;
  }
  return { ...result, ink: { edited: true, files: [...editedUris] } } as ApplyWorkspaceEditResult;
}

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { ApplyWorkspaceEditParams } from 'vscode-languageserver-protocol';

import { applyTextEdits } from '../src/edits';
import { acceptedAnswer, endOf, withUserTexts } from '../src/proposals';

const uri = 'file:///w/a.py';
const params: ApplyWorkspaceEditParams = {
  label: 'ink: edit a.py (call_1)',
  edit: {
    documentChanges: [
      { textDocument: { uri, version: 3 }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } }, newText: 'two\n' }] },
    ],
  },
};

test('the end of a text is past its last line', () => {
  assert.deepEqual(endOf('a\nbc'), { line: 1, character: 2 });
  assert.deepEqual(endOf('a\r\n'), { line: 1, character: 0 });
  assert.deepEqual(endOf(''), { line: 0, character: 0 });
});

test("the user's version replaces the file's whole text, the version kept", () => {
  const out = withUserTexts(params, new Map([[uri, { current: 'one\n', text: 'two, edited\n' }]]));
  const change = out.edit.documentChanges?.[0];
  assert.ok(change !== undefined && 'textDocument' in change);
  assert.equal(change.textDocument.version, 3);
  assert.equal(applyTextEdits('one\n', change.edits as never), 'two, edited\n');
  assert.equal(out.label, params.label);
});

test('plain `changes` are replaced too; other files stay', () => {
  const other = 'file:///w/b.py';
  const plain: ApplyWorkspaceEditParams = {
    edit: { changes: { [uri]: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, newText: 'x' }], [other]: [] } },
  };
  const out = withUserTexts(plain, new Map([[uri, { current: 'one', text: 'mine' }]]));
  assert.equal(applyTextEdits('one', out.edit.changes?.[uri] ?? []), 'mine');
  assert.deepEqual(out.edit.changes?.[other], []);
});

test('the answer says edited, naming the files, only when the edited version was applied', () => {
  const other = 'file:///w/b.py';
  assert.deepEqual(acceptedAnswer({ applied: true }, [uri]), { applied: true, ink: { edited: true, files: [uri] } });
  assert.deepEqual(acceptedAnswer({ applied: true }, [uri, other]), {
    applied: true,
    ink: { edited: true, files: [uri, other] },
  });
  assert.deepEqual(acceptedAnswer({ applied: true }, []), { applied: true });
  assert.deepEqual(acceptedAnswer({ applied: false, failureReason: 'x' }, [uri]), { applied: false, failureReason: 'x' });
});

test("a rename's edit gets the user's version of the edited files only", () => {
  const other = 'file:///w/b.py';
  const rename: ApplyWorkspaceEditParams = {
    edit: {
      documentChanges: [
        { textDocument: { uri, version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, newText: 'new' }] },
        { textDocument: { uri: other, version: 2 }, edits: [{ range: { start: { line: 0, character: 4 }, end: { line: 0, character: 7 } }, newText: 'new' }] },
      ],
    },
  };
  const out = withUserTexts(rename, new Map([[other, { current: 'use old', text: 'use new  # mine' }]]));
  const [first, second] = out.edit.documentChanges ?? [];
  assert.ok(first !== undefined && 'textDocument' in first && second !== undefined && 'textDocument' in second);
  assert.equal(applyTextEdits('old', first.edits as never), 'new');
  assert.equal(applyTextEdits('use old', second.edits as never), 'use new  # mine');
  assert.equal(second.textDocument.version, 2);
});

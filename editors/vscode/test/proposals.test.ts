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

test('the answer says edited only when the edited version was applied', () => {
  assert.deepEqual(acceptedAnswer({ applied: true }, true), { applied: true, ink: { edited: true } });
  assert.deepEqual(acceptedAnswer({ applied: true }, false), { applied: true });
  assert.deepEqual(acceptedAnswer({ applied: false, failureReason: 'x' }, true), { applied: false, failureReason: 'x' });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { ApplyWorkspaceEditParams, TextEdit } from 'vscode-languageserver-protocol';

import { applyTextEdits, isPreApproved, offsetAt, planEdit, summarizeChange, withoutConfirmation } from '../src/edits';

const edit = (sl: number, sc: number, el: number, ec: number, newText: string): TextEdit => ({
  range: { start: { line: sl, character: sc }, end: { line: el, character: ec } },
  newText,
});

// The shape ink-ls sends (protocol.md, "File changes"): a whole-document replacement with a
// change annotation that asks for confirmation.
const inkEdit: ApplyWorkspaceEditParams = {
  label: 'ink: edit src/app.py (call_3)',
  edit: {
    documentChanges: [
      {
        textDocument: { uri: 'file:///w/src/app.py', version: 4 },
        edits: [{ ...edit(0, 0, 2, 0, 'new\ntext\n'), annotationId: 'ink-call_3' }],
      },
    ],
    changeAnnotations: { 'ink-call_3': { label: 'ink: edit src/app.py (call_3)', needsConfirmation: true } },
  },
};

test('offsetAt handles \\n, \\r\\n and \\r line ends and clamps like VS Code', () => {
  const text = 'ab\r\ncd\ref\ngh';
  assert.equal(offsetAt(text, { line: 0, character: 1 }), 1);
  assert.equal(offsetAt(text, { line: 1, character: 0 }), 4);
  assert.equal(offsetAt(text, { line: 2, character: 1 }), 8);
  assert.equal(offsetAt(text, { line: 3, character: 2 }), 12);
  assert.equal(offsetAt(text, { line: 0, character: 99 }), 2, 'past the line end clamps before \\r\\n');
  assert.equal(offsetAt(text, { line: 9, character: 0 }), text.length, 'past the last line is the end');
});

test('offsetAt counts UTF-16 code units (VS Code position encoding)', () => {
  const text = 'a😀b\n';
  assert.equal(offsetAt(text, { line: 0, character: 3 }), 3);
  assert.equal(text.slice(offsetAt(text, { line: 0, character: 3 })), 'b\n');
});

test('applyTextEdits: whole-document replacement as ink-ls sends it', () => {
  assert.equal(applyTextEdits('old\nbody\n', [edit(0, 0, 2, 0, 'new\n')]), 'new\n');
});

test('applyTextEdits: several edits refer to the original text, in any order', () => {
  const text = 'one\ntwo\nthree\n';
  const edits = [edit(2, 0, 2, 5, 'THREE'), edit(0, 0, 0, 3, 'ONE'), edit(1, 3, 1, 3, '!')];
  assert.equal(applyTextEdits(text, edits), 'ONE\ntwo!\nTHREE\n');
});

test('applyTextEdits: inserts at the same position keep their order', () => {
  assert.equal(applyTextEdits('x', [edit(0, 0, 0, 0, 'a'), edit(0, 0, 0, 0, 'b')]), 'abx');
});

test('applyTextEdits: overlapping edits are refused', () => {
  assert.throws(() => applyTextEdits('abcdef', [edit(0, 0, 0, 4, 'x'), edit(0, 2, 0, 5, 'y')]), /overlapping edits/);
});

test('applyTextEdits: an empty (new) file', () => {
  assert.equal(applyTextEdits('', [edit(0, 0, 0, 0, 'hello\n')]), 'hello\n');
});

test('planEdit groups documentChanges by file and marks created files', () => {
  const plan = planEdit({
    documentChanges: [
      { kind: 'create', uri: 'file:///w/new.txt' },
      { textDocument: { uri: 'file:///w/new.txt', version: null }, edits: [edit(0, 0, 0, 0, 'hi\n')] },
      { textDocument: { uri: 'file:///w/a.txt', version: 2 }, edits: [edit(0, 0, 0, 1, 'A')] },
      { textDocument: { uri: 'file:///w/new.txt', version: null }, edits: [edit(1, 0, 1, 0, 'more\n')] },
    ],
  });
  assert.deepEqual(plan.unsupported, []);
  assert.deepEqual(
    plan.files.map((f) => [f.uri, f.create, f.edits.map((e) => e.newText)]),
    [
      ['file:///w/new.txt', true, ['hi\n', 'more\n']],
      ['file:///w/a.txt', false, ['A']],
    ],
  );
});

test('planEdit reads the `changes` form and reports renames and deletes as unsupported', () => {
  assert.deepEqual(planEdit({ changes: { 'file:///w/a.txt': [edit(0, 0, 0, 0, 'x')] } }).files, [
    { uri: 'file:///w/a.txt', create: false, edits: [edit(0, 0, 0, 0, 'x')] },
  ]);
  const plan = planEdit({
    documentChanges: [
      { kind: 'rename', oldUri: 'file:///w/a', newUri: 'file:///w/b' },
      { kind: 'delete', uri: 'file:///w/c' },
    ],
  });
  assert.deepEqual(plan.unsupported, ['rename file:///w/a to file:///w/b', 'delete file:///w/c']);
});

test('withoutConfirmation drops annotations so VS Code applies without its Refactor Preview', () => {
  const plain = withoutConfirmation(inkEdit);
  assert.equal(plain.label, inkEdit.label);
  assert.equal(plain.edit.changeAnnotations, undefined);
  assert.deepEqual(plain.edit.documentChanges, [
    { textDocument: { uri: 'file:///w/src/app.py', version: 4 }, edits: [edit(0, 0, 2, 0, 'new\ntext\n')] },
  ]);
  // The original is left as it was (the middleware may be asked again).
  assert.ok(inkEdit.edit.changeAnnotations !== undefined);
});

test('withoutConfirmation keeps resource operations without their annotation', () => {
  const plain = withoutConfirmation({
    edit: { documentChanges: [{ kind: 'create', uri: 'file:///w/n', annotationId: 'x' }] },
  });
  assert.deepEqual(plain.edit.documentChanges, [{ kind: 'create', uri: 'file:///w/n' }]);
});

test('summarizeChange counts changed lines between the common head and tail', () => {
  assert.equal(summarizeChange('a\nb\nc\n', 'a\nB\nc\n'), '1 line removed, 1 added');
  assert.equal(summarizeChange('a\nc\n', 'a\nb1\nb2\nc\n'), '2 lines added');
  assert.equal(summarizeChange('a\nb\nc\n', 'a\n'), '2 lines removed');
  assert.equal(summarizeChange('', 'new\n'), '1 line added');
  assert.equal(summarizeChange('x\n', 'x'), 'line breaks changed');
  assert.equal(summarizeChange('same', 'same'), 'no change');
});

test('isPreApproved: only an `ink.approved` of exactly true skips the review', () => {
  const marked = (ink: unknown): ApplyWorkspaceEditParams => ({ ...inkEdit, ink }) as ApplyWorkspaceEditParams;
  assert.equal(isPreApproved(marked({ approved: true })), true);
  assert.equal(isPreApproved(inkEdit), false);
  for (const ink of [{ approved: false }, { approved: 'true' }, {}, null, true, 'approved']) {
    assert.equal(isPreApproved(marked(ink)), false, JSON.stringify(ink));
  }
  // The applied copy carries no marker and no annotation asking for confirmation.
  const applied = withoutConfirmation(marked({ approved: true }));
  assert.deepEqual(Object.keys(applied), ['label', 'edit']);
});

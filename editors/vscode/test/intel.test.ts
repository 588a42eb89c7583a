import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  type CallItemLike,
  type Converter,
  isAvailable,
  wireDocumentSymbols,
  wireHovers,
  wireIncoming,
  wireLocations,
  wireOutgoing,
  wireSymbolInformation,
  wireWorkspaceEdit,
} from '../src/intelWire';

// What the language client's code2ProtocolConverter does for these: the URI string, VS Code's
// 0-based symbol kinds shifted to LSP's 1-based ones.
const c: Converter = {
  asUri: (u) => u.toString(),
  asSymbolKind: (k) => (k + 1) as never,
  asCallHierarchyItem: (i: CallItemLike) => ({ name: i.name, kind: (i.kind + 1) as never, uri: i.uri.toString(), range: r(0, 0, 0, 1), selectionRange: r(0, 0, 0, 1) }),
};
const uri = (s: string): { toString(): string } => ({ toString: () => s });
const r = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

test('locations stay Locations, links stay LocationLinks (selection range defaults to the target range)', () => {
  assert.deepEqual(
    wireLocations([
      { uri: uri('file:///w/a.ts'), range: r(3, 16, 3, 21) },
      { targetUri: uri('file:///w/b.ts'), targetRange: r(0, 0, 4, 1), originSelectionRange: r(1, 2, 1, 7) },
    ], c),
    [
      { uri: 'file:///w/a.ts', range: r(3, 16, 3, 21) },
      { targetUri: 'file:///w/b.ts', targetRange: r(0, 0, 4, 1), targetSelectionRange: r(0, 0, 4, 1), originSelectionRange: r(1, 2, 1, 7) },
    ],
  );
});

test('a hover is one markdown text: code blocks fenced with their language, empty hovers dropped', () => {
  assert.deepEqual(
    wireHovers([
      { contents: [{ language: 'typescript', value: 'function add(a: number): number' }, { value: 'Adds **one**.' }], range: r(2, 9, 2, 12) },
      { contents: [''] },
    ]),
    [{ contents: { kind: 'markdown', value: '```typescript\nfunction add(a: number): number\n```\n\nAdds **one**.' }, range: r(2, 9, 2, 12) }],
  );
});

test('document symbols keep their tree; flat symbol information stays flat', () => {
  const method = { name: 'run', kind: 5, range: r(2, 2, 4, 3), selectionRange: r(2, 2, 2, 5), children: [] };
  const cls = { name: 'Job', detail: '', kind: 4, range: r(1, 0, 5, 1), selectionRange: r(1, 6, 1, 9), children: [method],
    // VS Code's objects are also SymbolInformation
    location: { uri: uri('file:///w/a.ts'), range: r(1, 0, 5, 1) } };
  assert.deepEqual(wireDocumentSymbols([cls], c), [
    { name: 'Job', detail: '', kind: 5, range: r(1, 0, 5, 1), selectionRange: r(1, 6, 1, 9),
      children: [{ name: 'run', detail: '', kind: 6, range: r(2, 2, 4, 3), selectionRange: r(2, 2, 2, 5), children: [] }] },
  ]);
  const flat = { name: 'helper', containerName: 'mod', kind: 11, location: { uri: uri('file:///w/b.ts'), range: r(7, 0, 9, 1) } };
  assert.deepEqual(wireDocumentSymbols([flat], c), [{ name: 'helper', containerName: 'mod', kind: 12, location: { uri: 'file:///w/b.ts', range: r(7, 0, 9, 1) } }]);
  assert.deepEqual(wireSymbolInformation([{ ...flat, containerName: '' }], c), [{ name: 'helper', kind: 12, location: { uri: 'file:///w/b.ts', range: r(7, 0, 9, 1) } }]);
});

test('calls carry their item and the ranges of the calls', () => {
  const item = { name: 'main', kind: 11, uri: uri('file:///w/main.ts'), range: r(0, 0, 3, 1), selectionRange: r(0, 9, 0, 13) };
  const [incoming] = wireIncoming([{ from: item, fromRanges: [r(1, 2, 1, 5)] }], c);
  assert.equal(incoming.from.uri, 'file:///w/main.ts');
  assert.equal(incoming.from.kind, 12);
  assert.deepEqual(incoming.fromRanges, [r(1, 2, 1, 5)]);
  assert.equal(wireOutgoing([{ to: item, fromRanges: [] }], c)[0].to.name, 'main');
});

test("a rename's entries become changes per URI (one file's edits merged)", () => {
  assert.deepEqual(
    wireWorkspaceEdit([
      [uri('file:///w/a.ts'), [{ range: r(0, 9, 0, 12), newText: 'sum' }]],
      [uri('file:///w/b.ts'), [{ range: r(2, 4, 2, 7), newText: 'sum' }]],
      [uri('file:///w/a.ts'), [{ range: r(5, 1, 5, 4), newText: 'sum' }]],
    ], c),
    { changes: {
      'file:///w/a.ts': [{ range: r(0, 9, 0, 12), newText: 'sum' }, { range: r(5, 1, 5, 4), newText: 'sum' }],
      'file:///w/b.ts': [{ range: r(2, 4, 2, 7), newText: 'sum' }],
    } },
  );
});

test('available: never for plain text; an answer proves it; else a symbol provider must answer', async () => {
  let asked = 0;
  const symbols = (has: boolean) => () => {
    asked++;
    return Promise.resolve(has);
  };
  assert.equal(await isAvailable('plaintext', true, symbols(true)), false);
  assert.equal(await isAvailable('typescript', true, symbols(false)), true);
  assert.equal(asked, 0);
  assert.equal(await isAvailable('typescript', false, symbols(true)), true);
  assert.equal(await isAvailable('python', false, symbols(false)), false);
  assert.equal(asked, 2);
});

test("a function's or method's workspace symbol loses the `()` VS Code's TypeScript features add to its label", () => {
  const at = { uri: uri('file:///w/g.ts'), range: r(14, 0, 16, 1) };
  assert.deepEqual(
    wireSymbolInformation([
      { name: 'totalArea()', kind: 11, location: at },
      { name: 'area()', kind: 5, containerName: 'Rect', location: at },
      { name: 'Rect', kind: 4, location: at },
      { name: 'weird()', kind: 12, location: at },
    ], c).map((s) => s.name),
    ['totalArea', 'area', 'Rect', 'weird()'],
  );
});

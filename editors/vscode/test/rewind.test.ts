import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SESSION_CHANGES, SESSION_CHECKPOINTS, SESSION_REWIND } from '../src/protocol';
import { changedByTurn, type Checkpoint, type ReviewFile, reviewChanges, rewindItems, type RewindResult, rewindSession, touchedBy } from '../src/rewind';

const entries: Checkpoint[] = [
  {
    turn: 1, kind: 'turn', prompt: 'create a.py', createdAt: '2026-12-03T09:00:00Z', rewound: false, noChanges: false,
    files: [{ path: 'a.py', status: 'added', added: 1, removed: 0 }],
  },
  {
    turn: 2, kind: 'turn', prompt: 'edit a.py\nand tidy', createdAt: '2026-12-03T09:01:00Z', rewound: false, noChanges: false,
    files: [
      { path: 'a.py', status: 'modified', added: 1, removed: 1 },
      { path: 'b.txt', status: 'added', added: 1, removed: 0 },
    ],
  },
  { turn: 3, kind: 'turn', prompt: 'just look', createdAt: '2026-12-03T09:02:00Z', rewound: false, noChanges: true, files: [] },
];

test('the quick pick lists turns newest first with their file counts', () => {
  assert.deepEqual(rewindItems(entries), [
    { label: '$(comment) 3. just look', description: 'no changes · 2026-12-03 09:02:00', detail: 'rewinding here restores the conversation only', turn: 3 },
    { label: '$(comment) 2. edit a.py', description: '2 files · 2026-12-03 09:01:00', detail: 'a.py +1 −1, b.txt +1 −0', turn: 2 },
    { label: '$(comment) 1. create a.py', description: '1 file · 2026-12-03 09:00:00', detail: 'a.py +1 −0', turn: 1 },
  ]);
  assert.deepEqual(touchedBy(entries, 2), ['a.py', 'b.txt']);
});

test('the picked turn is rewound and its files open as one review, before ↔ now', async () => {
  const asked: [string, object][] = [];
  const result: RewindResult = {
    checkpoint: {
      turn: 4, kind: 'rewind', prompt: 'rewind to 2 (both)', createdAt: '', rewound: false, noChanges: false, to: 2, restore: 'both',
      files: [{ path: 'a.py', status: 'modified', added: 1, removed: 1 }, { path: 'b.txt', status: 'deleted', added: 0, removed: 1 }],
    },
    restored: ['a.py', 'b.txt'],
    kept: [],
  };
  let reviewed: { title: string; files: ReviewFile[] } | undefined;
  const told: string[] = [];
  const out = await rewindSession(
    {
      request: (method, params) => {
        asked.push([method, params]);
        return Promise.resolve(method === SESSION_CHECKPOINTS ? { checkpoints: entries } : result);
      },
      pick: (items) => Promise.resolve(items.find((i) => i.turn === 2)),
      readFile: (path) => Promise.resolve(path === 'a.py' ? "print('two')\n" : 'made\n'),
      review: (title, files) => {
        reviewed = { title, files };
        return Promise.resolve();
      },
      inform: (m) => told.push(m),
    },
    's-1',
  );
  assert.equal(out, result);
  assert.deepEqual(asked, [[SESSION_CHECKPOINTS, { sessionId: 's-1' }], [SESSION_REWIND, { sessionId: 's-1', turn: 2 }]]);
  assert.deepEqual(reviewed, {
    title: 'Ink: rewind to before 2',
    files: [{ path: 'a.py', before: "print('two')\n" }, { path: 'b.txt', before: 'made\n' }],
  });
  assert.deepEqual(told, ['Ink: rewound to before 2 (rewind to 4 to undo it).']);
});

test('"Rewind to here" gives the turn: no picker', async () => {
  let picked = false;
  await rewindSession(
    {
      request: (method) =>
        Promise.resolve(method === SESSION_CHECKPOINTS ? { checkpoints: entries } : { checkpoint: { ...entries[2], files: [] }, restored: [], kept: [] }),
      pick: () => {
        picked = true;
        return Promise.resolve(undefined);
      },
      readFile: () => Promise.resolve(undefined),
      review: () => Promise.resolve(undefined),
      inform: () => undefined,
    },
    's-1',
    3,
  );
  assert.equal(picked, false);
});

test('the review opens one turn\'s files, before ↔ the file on disk, binary ones left out', async () => {
  const asked: [string, object][] = [];
  let reviewed: { title: string; files: ReviewFile[] } | undefined;
  await reviewChanges(
    {
      request: (method, params) => {
        asked.push([method, params]);
        if (method === SESSION_CHECKPOINTS) {
          return Promise.resolve({ checkpoints: entries });
        }
        return Promise.resolve({
          files: [
            { path: 'a.py', status: 'modified', before: "print('one')\n", after: "print('two')\n" },
            { path: 'b.txt', status: 'added', after: 'made\n' },
            { path: 'logo.png', status: 'modified', binary: true },
          ],
        });
      },
      pick: (items) => {
        assert.deepEqual(items.map((i) => i.turn), [0, 2, 1]);
        return Promise.resolve(items[1]);
      },
      readFile: () => Promise.resolve(undefined),
      review: (title, files) => {
        reviewed = { title, files };
        return Promise.resolve();
      },
      inform: () => undefined,
    },
    's-1',
  );
  assert.deepEqual(asked[1], [SESSION_CHANGES, { sessionId: 's-1', turn: 2 }]);
  assert.deepEqual(reviewed, {
    title: 'Ink: changes of turn 2',
    files: [{ path: 'a.py', before: "print('one')\n" }, { path: 'b.txt', before: undefined }],
  });
});

test('after a turn: its number and file count, nothing for a turn without changes', async () => {
  const deps = { request: () => Promise.resolve({ checkpoints: entries }) };
  assert.deepEqual(await changedByTurn(deps, 's-1', 't2'), { turn: 2, count: 2 });
  assert.equal(await changedByTurn(deps, 's-1', 't3'), undefined);
  assert.equal(await changedByTurn(deps, 's-1', 'c1'), undefined);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { commandSuggestions, completionToken, mentionSuggestions } from '../src/completionItems';

test('the token before the caret: / only at the start, @ only after a space (never user@host)', () => {
  assert.deepEqual(completionToken('/rev'), { at: 0, token: '/rev' });
  assert.deepEqual(completionToken('/'), { at: 0, token: '/' });
  assert.equal(completionToken('/review src'), undefined);
  assert.equal(completionToken('see /rev'), undefined);
  assert.deepEqual(completionToken('look at @src/ma'), { at: 8, token: '@src/ma' });
  assert.deepEqual(completionToken('@'), { at: 0, token: '@' });
  assert.equal(completionToken('mail me at me@host'), undefined);
});

test('commands: prefix matches first, then the rest containing the query; hint and description shown', () => {
  const commands = [
    { name: 'test', description: 'Run the tests', argumentHint: '' },
    { name: 'git:review', description: '', argumentHint: '[branch]' },
    { name: 'review', description: 'Review a path', argumentHint: '<path>' },
    { name: 'compact', description: 'Summarise the conversation', argumentHint: '' },
  ];
  assert.deepEqual(commandSuggestions('rev', commands).map((s) => [s.label, s.detail]), [
    ['/review', '<path> — Review a path'],
    ['/git:review', '[branch]'],
  ]);
  assert.deepEqual(commandSuggestions('', commands).map((s) => s.insert), ['/compact', '/git:review', '/review', '/test']);
  assert.deepEqual(commandSuggestions('zzz', commands), []);
});

test('mentions: @selection and @problems, folders and files containing the query, shortest first', () => {
  const files = [
    { rel: 'src/math.ts', abs: '/w/src/math.ts' },
    { rel: 'src/util/strings.ts', abs: '/w/src/util/strings.ts' },
    { rel: 'README.md', abs: '/w/README.md' },
  ];
  assert.deepEqual(mentionSuggestions('', files).map((s) => s.label), [
    '@selection', '@problems', 'src/', 'README.md', 'src/util/', 'src/math.ts', 'src/util/strings.ts',
  ]);
  assert.deepEqual(mentionSuggestions('pro', files).map((s) => s.insert), ['@problems']);
  const util = mentionSuggestions('util', files);
  assert.deepEqual(util.map((s) => [s.kind, s.insert, s.path]), [
    ['folder', '@src/util/', '/w/src/util/'],
    ['file', '@src/util/strings.ts', '/w/src/util/strings.ts'],
  ]);
  assert.deepEqual(mentionSuggestions('math', files).map((s) => s.kind), ['file']);
});

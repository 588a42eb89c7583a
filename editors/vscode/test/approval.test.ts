import assert from 'node:assert/strict';
import { test } from 'node:test';

import { CancellationTokenSource } from 'vscode-jsonrpc';

import { answerFor, dialogFor, REJECTED_REASON, rejectWhenWithdrawn, ReviewQueue, WITHDRAWN_REASON } from '../src/approval';

test('reviews are answered one at a time, first in first out', async () => {
  const queue = new ReviewQueue<string>();
  const seen: (string | undefined)[] = [];
  queue.onDidChangeCurrent((c) => seen.push(c?.item));
  const a = queue.enqueue('a.txt');
  const b = queue.enqueue('b.txt');
  assert.equal(queue.current?.item, 'a.txt');
  assert.equal(queue.accept(), true);
  assert.deepEqual(await a.outcome, { accepted: true });
  assert.equal(queue.current?.item, 'b.txt');
  assert.equal(queue.reject(), true);
  assert.deepEqual(await b.outcome, { accepted: false, reason: REJECTED_REASON });
  assert.equal(queue.current, undefined);
  assert.deepEqual(seen, ['a.txt', 'b.txt', undefined]);
});

test('accept or reject with nothing pending reports false', () => {
  const queue = new ReviewQueue<string>();
  assert.equal(queue.accept(), false);
  assert.equal(queue.reject('why'), false);
});

test('a review can be settled by id without disturbing the one on screen', async () => {
  const queue = new ReviewQueue<string>();
  const seen: (string | undefined)[] = [];
  queue.enqueue('a');
  const b = queue.enqueue('b');
  queue.onDidChangeCurrent((c) => seen.push(c?.item));
  assert.equal(queue.reject('cancelled by the server', b.id), true);
  assert.deepEqual(await b.outcome, { accepted: false, reason: 'cancelled by the server' });
  assert.equal(queue.current?.item, 'a');
  assert.deepEqual(seen, [], 'the head did not change');
});

test('rejectAll answers every pending review with the reason', async () => {
  const queue = new ReviewQueue<number>();
  const outcomes = [queue.enqueue(1), queue.enqueue(2)].map((r) => r.outcome);
  queue.rejectAll('the server stopped');
  assert.deepEqual(await Promise.all(outcomes), [
    { accepted: false, reason: 'the server stopped' },
    { accepted: false, reason: 'the server stopped' },
  ]);
  assert.equal(queue.size, 0);
});

test('dialogFor: the first line is the headline, the command the detail', () => {
  assert.deepEqual(dialogFor(2, 'Ink wants to run a command:\nnpm test'), {
    severity: 'warning',
    message: 'Ink wants to run a command:',
    detail: 'npm test',
  });
  assert.deepEqual(dialogFor(1, 'Oops'), { severity: 'error', message: 'Oops', detail: undefined });
  assert.equal(dialogFor(3, 'x').severity, 'info');
  assert.equal(dialogFor(4, 'x').severity, 'info');
});

test('answerFor returns the offered action (with its optionId), null when dismissed', () => {
  const actions = [
    { title: 'Allow once', optionId: 'allow_once' },
    { title: 'Always allow', optionId: 'allow_always' },
    { title: 'Reject', optionId: 'reject_once' },
  ];
  assert.equal(answerFor(actions, 'Always allow'), actions[1]);
  assert.equal(answerFor(actions, undefined), null);
  assert.equal(answerFor(actions, 'Cancel'), null);
});

test('a review is rejected when the server withdraws its request, and only that one', async () => {
  const queue = new ReviewQueue<string>();
  const a = queue.enqueue('a');
  const b = queue.enqueue('b');
  const source = new CancellationTokenSource();
  const watch = rejectWhenWithdrawn(queue, b.id, source.token);
  source.cancel(); // what `$/cancelRequest` for b's request does to its token
  assert.deepEqual(await b.outcome, { accepted: false, reason: WITHDRAWN_REASON });
  assert.equal(queue.current?.item, 'a');
  watch.dispose();
  const late = new CancellationTokenSource();
  late.cancel(); // withdrawn before the review was even queued
  rejectWhenWithdrawn(queue, a.id, late.token);
  assert.deepEqual(await a.outcome, { accepted: false, reason: WITHDRAWN_REASON });
  assert.equal(queue.current, undefined);
});

test('an answered review ignores a later withdrawal', async () => {
  const queue = new ReviewQueue<string>();
  const a = queue.enqueue('a');
  const source = new CancellationTokenSource();
  const watch = rejectWhenWithdrawn(queue, a.id, source.token);
  assert.equal(queue.accept(), true);
  watch.dispose();
  const next = queue.enqueue('next');
  source.cancel();
  assert.deepEqual(await a.outcome, { accepted: true });
  assert.equal(queue.current?.id, next.id, 'the next review stays on screen');
});

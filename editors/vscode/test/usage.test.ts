import assert from 'node:assert/strict';
import { test } from 'node:test';

import { toWire } from '../src/diagnosticsWire';
import { short, UsageTracker } from '../src/usage';

test('the status bar shows the share of the window, the tooltip the turn and the session', () => {
  const tracker = new UsageTracker();
  assert.equal(tracker.view().text, '$(hubot) Ink');
  tracker.update({
    sessionUpdate: 'usage_update', inputTokens: 3000, outputTokens: 120, cacheReadTokens: 2048,
    contextTokens: 3120, contextWindow: 8192, sessionInputTokens: 9000, sessionOutputTokens: 400,
    sessionCacheReadTokens: 2048,
  });
  const view = tracker.view();
  assert.equal(view.text, '$(hubot) Ink 3.1k/8.2k (38%)');
  assert.equal(view.tooltip, [
    'Context: 3,120 of 8,192 tokens (38%)',
    'Last turn: 3,000 in, 2,048 cached, 120 out',
    'Session: 9,000 in, 2,048 cached, 400 out',
  ].join('\n'));
});

test('compaction shows while it runs and lowers the context after', () => {
  const tracker = new UsageTracker();
  tracker.update({ sessionUpdate: 'usage_update', inputTokens: 7000, outputTokens: 10, cacheReadTokens: 0, contextTokens: 7010, contextWindow: 8192, sessionInputTokens: 7000, sessionOutputTokens: 10, sessionCacheReadTokens: 0 });
  tracker.update({ sessionUpdate: 'compaction', phase: 'start', reason: 'threshold', tokensBefore: 7010, contextWindow: 8192 });
  assert.equal(tracker.view().text, '$(hubot) Ink $(sync~spin) compacting');
  tracker.update({ sessionUpdate: 'compaction', phase: 'end', reason: 'threshold', tokensBefore: 7010, tokensAfter: 2100, contextWindow: 8192 });
  assert.equal(tracker.view().text, '$(hubot) Ink 2.1k/8.2k (26%)');
  assert.ok(tracker.view().tooltip.endsWith('Compacted 1 time in this window'));
  assert.equal(short(131072), '131k');
  assert.equal(short(999), '999');
});

test('VS Code diagnostics become LSP ones (severity shifted, code value)', () => {
  assert.deepEqual(
    toWire({ range: { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } }, severity: 0, code: { value: 519 }, source: 'json', message: 'Expected comma' }),
    { range: { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } }, severity: 1, code: 519, source: 'json', message: 'Expected comma' },
  );
  assert.deepEqual(toWire({ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: 1, message: 'w' }), {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
    severity: 2,
    message: 'w',
  });
});

test('the tooltip says where the window figure came from', () => {
  const tracker = new UsageTracker();
  tracker.update({
    sessionUpdate: 'usage_update', inputTokens: 3000, outputTokens: 20, cacheReadTokens: 0,
    sessionInputTokens: 3000, sessionOutputTokens: 20, sessionCacheReadTokens: 0,
    contextTokens: 3020, contextWindow: 4096, contextWindowSource: 'Ollama runtime',
  });
  assert.equal(tracker.view().tooltip.split('\n')[1], 'Window: 4,096 tokens (Ollama runtime)');
});

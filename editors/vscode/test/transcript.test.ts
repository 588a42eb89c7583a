import assert from 'node:assert/strict';
import { test } from 'node:test';

import type { SessionUpdateParams } from '../src/protocol';
import { SessionState, Transcript } from '../src/transcript';

function recorder(): { t: Transcript; text: () => string } {
  let out = '';
  return { t: new Transcript((s) => (out += s)), text: () => out };
}

test('a turn with streamed text and a tool call reads as a conversation', () => {
  const { t, text } = recorder();
  t.prompt('how do I start?', 'README.md');
  t.update({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'read README.md', kind: 'read', status: 'pending', rawInput: { path: 'README.md' } });
  t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress', phase: 'running' });
  t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', phase: 'settled', durationMs: 12.4 });
  t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', phase: 'delivered', rawOutput: { isError: false, text: '# Demo' } });
  t.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Run ' } });
  t.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '`make`.' } });
  t.update({ sessionUpdate: 'usage_update', inputTokens: 812, outputTokens: 40, cacheReadTokens: 0, sessionInputTokens: 812, sessionOutputTokens: 40, sessionCacheReadTokens: 0 });
  t.update({ sessionUpdate: 'turn_end', stopReason: 'end_turn' });
  t.result({ sessionId: 's', turnId: 't1', stopReason: 'end_turn', text: 'Run `make`.' });
  assert.equal(
    text(),
    [
      '',
      '──────── You ────────',
      'how do I start?',
      '(about README.md)',
      '──────── Ink ────────',
      '  … read README.md',
      '  ✓ read README.md (12 ms)',
      'Run `make`.',
      '',
      '[done · turn t1 · 812 in / 40 out tokens]',
      '',
    ].join('\n'),
  );
});

test('a failed call shows the first line of its output; errors and outcomes are explicit', () => {
  const { t, text } = recorder();
  t.prompt('run tests');
  t.update({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'bash: npm test', kind: 'execute', status: 'pending', rawInput: {} });
  t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'failed', phase: 'settled', durationMs: 2500 });
  t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'failed', phase: 'delivered', rawOutput: { isError: true, text: '\nTool "bash" blocked by user: the user rejected this call\n' } });
  t.update({ sessionUpdate: 'error', message: 'model endpoint unreachable' });
  t.result({ sessionId: 's', turnId: 't2', stopReason: 'error', text: '', error: 'HTTP 500' });
  const out = text();
  assert.ok(out.includes('  ✗ bash: npm test — failed (2.5 s)\n    Tool "bash" blocked by user: the user rejected this call\n'), out);
  assert.ok(out.includes('[error] model endpoint unreachable\n'), out);
  assert.ok(out.endsWith('[failed: HTTP 500 · turn t2]\n'), out);
});

test('a call blocked before it ran (no settled phase) still gets its ✗ line', () => {
  const { t, text } = recorder();
  t.prompt('q');
  t.update({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'edit a.txt', kind: 'edit', status: 'pending', rawInput: {} });
  t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'failed', phase: 'delivered', rawOutput: { isError: true, text: 'Tool "edit" blocked by policy: approval mode is readonly' } });
  assert.ok(text().endsWith('  … edit a.txt\n  ✗ edit a.txt — failed\n    Tool "edit" blocked by policy: approval mode is readonly\n'), text());
});

test('an answer that was not streamed is written from the result; a cancel says so', () => {
  const { t, text } = recorder();
  t.prompt('q');
  t.result({ sessionId: 's', turnId: 't1', stopReason: 'cancelled', text: 'partial answer' });
  assert.ok(text().endsWith('──────── Ink ────────\npartial answer\n\n[cancelled · turn t1]\n'), text());
});

test('tool lines start on a fresh line after streamed text', () => {
  const { t, text } = recorder();
  t.prompt('q');
  t.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Let me look' } });
  t.update({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'ls src', kind: 'read', status: 'pending', rawInput: {} });
  assert.ok(text().endsWith('Let me look\n  … ls src\n'), text());
});

const upd = (sessionId: string): SessionUpdateParams => ({
  sessionId,
  turnId: 't1',
  update: { sessionUpdate: 'turn_end', stopReason: 'end_turn' },
});

test('SessionState adopts the new session from the first update and ignores others', () => {
  const s = new SessionState();
  assert.equal(s.accepts(upd('s-1')), false, 'nothing in flight: not ours');
  assert.equal(s.begin(), true);
  assert.equal(s.begin(), false, 'one prompt at a time');
  assert.equal(s.accepts(upd('s-1')), true);
  assert.equal(s.sessionId, 's-1');
  assert.equal(s.accepts(upd('s-2')), false);
  s.end('s-1');
  assert.equal(s.running, false);
  s.reset();
  assert.equal(s.sessionId, undefined);
});

test('SessionState keeps the session from the result when no update came', () => {
  const s = new SessionState();
  s.begin();
  s.end('s-9');
  assert.equal(s.sessionId, 's-9');
  s.begin();
  s.end();
  assert.equal(s.sessionId, 's-9', 'a failed request keeps the session');
});

test("a task's sub-agent calls are indented under the task", () => {
  const { t, text } = recorder();
  t.prompt('survey');
  t.update({ sessionUpdate: 'tool_call', toolCallId: 'call_1', title: 'task: survey', kind: 'think', status: 'pending', rawInput: {} });
  t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'in_progress', phase: 'running' });
  t.update({ sessionUpdate: 'tool_call', toolCallId: 'call_1/call_1', title: 'read README.md', kind: 'read', status: 'pending', rawInput: {}, parentToolCallId: 'call_1' });
  t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1/call_1', status: 'completed', phase: 'settled', durationMs: 3, parentToolCallId: 'call_1' });
  t.update({ sessionUpdate: 'tool_call', toolCallId: 'call_1/call_2', title: 'bash: make', kind: 'execute', status: 'pending', rawInput: {}, parentToolCallId: 'call_1' });
  t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1/call_2', status: 'failed', phase: 'delivered', rawOutput: { isError: true, text: 'Tool "bash" blocked by user: the user rejected this call' }, parentToolCallId: 'call_1' });
  t.update({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'completed', phase: 'settled', durationMs: 1500 });
  assert.ok(
    text().endsWith(
      [
        '  … task: survey',
        '    … read README.md',
        '    ✓ read README.md (3 ms)',
        '    … bash: make',
        '    ✗ bash: make — failed',
        '      Tool "bash" blocked by user: the user rejected this call',
        '  ✓ task: survey (1.5 s)',
        '',
      ].join('\n'),
    ),
    text(),
  );
});

test('the transcript notes compactions and the instruction files loaded', () => {
  const { t, text } = recorder();
  t.prompt('go on');
  t.update({ sessionUpdate: 'instructions_loaded', paths: ['/ws/AGENTS.md', '/ws/src/AGENTS.md'], truncated: false });
  t.update({ sessionUpdate: 'compaction', phase: 'start', reason: 'threshold', tokensBefore: 7000 });
  t.update({ sessionUpdate: 'compaction', phase: 'end', reason: 'threshold', tokensBefore: 7000, tokensAfter: 2000 });
  assert.ok(
    text().endsWith(
      '[instructions: /ws/AGENTS.md, /ws/src/AGENTS.md]\n[compacting the conversation…]\n[compacted the conversation: 7000 → 2000 tokens]\n',
    ),
    text(),
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { callIdOfLabel, rejectedWithReason, ReviewQueue } from '../src/approval';
import {
  Conversation,
  formatElapsed,
  formatTokens,
  type PanelEvent,
  splitAttachments,
  targetOf,
  type ToolCard,
  withAttachments,
} from '../src/conversation';
import type { SessionUpdate } from '../src/protocol';
import { stableEnd } from '../src/streaming';

const up = (update: SessionUpdate, at = 1000): PanelEvent => ({ t: 'update', update, at });

test('a turn becomes a prompt, cards with their states, the streamed answer and the outcome', () => {
  const c = new Conversation();
  c.apply({ t: 'prompt', text: 'read it', chips: [{ label: 'README.md:3', path: '/w/README.md', startLine: 2, endLine: 2 }] });
  c.apply(up({ sessionUpdate: 'tool_call', toolCallId: 'call_1', title: 'read README.md', kind: 'read', status: 'pending', rawInput: { path: 'README.md', offset: 3, limit: 2 } }));
  const card = c.cards.get('call_1')!;
  assert.equal(card.status, 'queued');
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'in_progress', phase: 'running' }, 5000));
  assert.equal(card.status, 'running');
  assert.equal(card.startedAt, 5000);
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'completed', phase: 'settled', durationMs: 3 }));
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'completed', phase: 'delivered', content: [], rawOutput: { isError: false, text: 'Run `make`.' } }));
  assert.equal(card.status, 'done');
  assert.equal(card.output, 'Run `make`.');
  assert.deepEqual(targetOf(card), { path: 'README.md', startLine: 2, endLine: 3 });
  const first = c.apply(up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Run ' } }));
  const second = c.apply(up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '`make`.' } }));
  assert.equal(first, second, 'chunks grow one answer');
  assert.equal(c.apply(up({ sessionUpdate: 'usage_update', inputTokens: 1200, outputTokens: 30, cacheReadTokens: 0, sessionInputTokens: 1200, sessionOutputTokens: 30, sessionCacheReadTokens: 0 })), 'header');
  c.apply({ t: 'result', result: { sessionId: 's', turnId: 't1', stopReason: 'end_turn', text: 'Run `make`.' } });
  assert.deepEqual(c.entries.map((e) => e.type), ['user', 'tool', 'answer', 'outcome']);
  assert.equal(c.entries[2].type === 'answer' && c.entries[2].text, 'Run `make`.');
  assert.equal(c.entries[3].type === 'outcome' && c.entries[3].text, 'done');
  assert.equal(formatTokens(c.inputTokens), '1.2k');
});

test('an answer that was not streamed is shown from the result, in every turn', () => {
  const c = new Conversation();
  for (const turn of ['t1', 't2']) {
    c.apply({ t: 'prompt', text: `ask ${turn}`, chips: [] });
    c.apply({ t: 'result', result: { sessionId: 's', turnId: turn, stopReason: 'end_turn', text: `answer ${turn}` } });
  }
  assert.deepEqual(c.entries.filter((e) => e.type === 'answer').map((e) => e.type === 'answer' && e.text), ['answer t1', 'answer t2']);
});

test('sub-agent calls nest under their task; a redraw is of the task card', () => {
  const c = new Conversation();
  c.apply(up({ sessionUpdate: 'tool_call', toolCallId: 'call_1', title: 'task: look', kind: 'think', status: 'pending', rawInput: {} }));
  const changed = c.apply(up({ sessionUpdate: 'tool_call', toolCallId: 'call_1/call_1', title: 'read a.py', kind: 'read', status: 'pending', rawInput: { path: 'a.py' }, parentToolCallId: 'call_1' }));
  const task = c.cards.get('call_1')!;
  assert.equal(changed, task);
  assert.deepEqual(task.children.map((k) => k.id), ['call_1/call_1']);
  assert.equal(c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1/call_1', status: 'in_progress', phase: 'running' })), task);
  assert.equal(c.entries.length, 1);
});

test('a command approval lands on the waiting call; answered elsewhere, the buttons go', () => {
  const c = new Conversation();
  c.apply(up({ sessionUpdate: 'tool_call', toolCallId: 'call_1', title: 'bash: ls', kind: 'execute', status: 'pending', rawInput: { command: 'ls' } }));
  c.apply(up({ sessionUpdate: 'tool_call', toolCallId: 'call_2', title: 'bash: npm test', kind: 'execute', status: 'pending', rawInput: { command: 'npm test' } }));
  const id = c.matchCommand('Ink wants to run a command:\nnpm test');
  assert.equal(id, 'call_2');
  c.apply({ t: 'approval', approval: { id: 'cmd-1', kind: 'command', message: 'Ink wants to run a command:', detail: 'npm test' }, toolCallId: id });
  const card = c.cards.get('call_2')!;
  assert.equal(card.approval?.id, 'cmd-1');
  c.apply({ t: 'approvalDone', id: 'cmd-1', answer: 'Reject' });
  assert.equal(card.approval, undefined);
  assert.equal(card.answered, 'Reject');
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'call_2', status: 'failed', phase: 'delivered', content: [], rawOutput: { isError: true, text: 'Error: the user rejected this call' } }));
  assert.equal(card.status, 'refused');
});

test('a failed call that ran is failed, not refused; an edit keeps its diff', () => {
  const c = new Conversation();
  c.apply(up({ sessionUpdate: 'tool_call', toolCallId: 'e', title: 'edit a.txt', kind: 'edit', status: 'pending', rawInput: { path: 'a.txt' } }));
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'e', status: 'in_progress', phase: 'running' }));
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'e', status: 'failed', phase: 'delivered', content: [{ type: 'diff', path: '/w/a.txt', oldText: 'a', newText: 'b' }], rawOutput: { isError: true, text: 'the user rejected this edit' } }));
  const card = c.cards.get('e') as ToolCard;
  assert.equal(card.status, 'failed');
  assert.deepEqual(card.diff, { path: '/w/a.txt', oldText: 'a', newText: 'b' });
});

test('a call the user stopped is cancelled, not failed, and the turn says cancelled', () => {
  const c = new Conversation();
  c.apply({ t: 'prompt', text: 'sleep', chips: [] });
  c.apply(up({ sessionUpdate: 'tool_call', toolCallId: 'b1', title: 'bash: sleep 60', kind: 'execute', status: 'pending', rawInput: { command: 'sleep 60' } }));
  c.apply(up({ sessionUpdate: 'tool_call', toolCallId: 'b2', title: 'bash: echo later', kind: 'execute', status: 'pending', rawInput: { command: 'echo later' } }));
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'b1', status: 'in_progress', phase: 'running' }));
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'b1', status: 'cancelled', phase: 'settled', durationMs: 900 }));
  assert.equal(c.cards.get('b1')!.status, 'cancelled');
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'b1', status: 'cancelled', phase: 'delivered', content: [], rawOutput: { isError: true, text: 'Error: bash aborted by user' } }));
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 'b2', status: 'cancelled', phase: 'delivered', content: [], rawOutput: { isError: true, text: '(interrupted before this tool ran)' } }));
  assert.deepEqual([c.cards.get('b1')!.status, c.cards.get('b2')!.status], ['cancelled', 'cancelled']);
  c.apply({ t: 'result', result: { sessionId: 's', turnId: 't1', stopReason: 'cancelled', text: '' } });
  const outcome = c.entries[c.entries.length - 1];
  assert.deepEqual(outcome, { type: 'outcome', stopReason: 'cancelled', text: 'cancelled' });
});

test('a replayed prompt carries its document as a chip; clear empties everything', () => {
  const c = new Conversation();
  c.apply({ t: 'update', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'why?' }, context: { path: 'src/a.py', firstLine: 3, lastLine: 5 } } });
  const user = c.entries[0];
  assert.ok(user.type === 'user');
  assert.deepEqual(user.chips, [{ label: 'src/a.py:3-5', path: 'src/a.py', startLine: 2, endLine: 4 }]);
  assert.equal(c.apply({ t: 'clear', title: 'old one' }), 'cleared');
  assert.deepEqual([c.entries.length, c.cards.size, c.title], [0, 0, 'old one']);
});

test('files attached beyond the first come back as chips of a replayed prompt', () => {
  const sent = withAttachments('look', ['a.txt', 'src/b.py']);
  assert.equal(sent, 'look\n\nAlso attached: a.txt, src/b.py');
  assert.deepEqual(splitAttachments(sent), { text: 'look', paths: ['a.txt', 'src/b.py'] });
  assert.deepEqual(splitAttachments('x\n\nAlso attached: a\nmore'), { text: 'x\n\nAlso attached: a\nmore', paths: [] });
  const c = new Conversation();
  c.apply({ t: 'update', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: sent } } });
  assert.deepEqual(c.entries[0], { type: 'user', text: 'look', chips: [{ label: 'a.txt', path: 'a.txt' }, { label: 'src/b.py', path: 'src/b.py' }] });
});

test('the streaming split freezes whole blocks outside code fences only', () => {
  const text = 'Para one.\n\n```py\nx = 1\n\ny = 2\n```\nafter\n\ntail';
  const end = stableEnd(text, 0);
  assert.equal(text.slice(0, end), 'Para one.\n\n```py\nx = 1\n\ny = 2\n```\nafter\n\n');
  assert.equal(stableEnd('```\nopen fence\n\nstill open', 0), 0);
  assert.equal(stableEnd('no newline yet', 0), 0);
  assert.equal(stableEnd(text, end), end);
});

test('edit labels name their call; a rejection reason reaches the model; settles are heard', () => {
  assert.equal(callIdOfLabel('ink: edit greet.txt (call_1)'), 'call_1');
  assert.equal(callIdOfLabel('ink: edit a (x) b (call_1/call_2)'), 'call_1/call_2');
  assert.equal(rejectedWithReason('  '), 'the user rejected this edit');
  assert.equal(rejectedWithReason('use tabs'), 'the user rejected this edit: use tabs');
  const queue = new ReviewQueue<string>();
  const heard: [number, boolean][] = [];
  queue.onDidSettle((id, o) => heard.push([id, o.accepted]));
  const a = queue.enqueue('a');
  queue.enqueue('b');
  assert.equal(queue.has(a.id), true);
  queue.reject('no', 2);
  queue.accept(a.id);
  assert.deepEqual(heard, [[2, false], [1, true]]);
  assert.equal(formatElapsed(65_000), '1 m 05 s');
});

test('each prompt learns its turn number from the first update of its turn', () => {
  const c = new Conversation();
  c.apply({ t: 'prompt', text: 'one', chips: [] });
  c.apply({ t: 'update', turnId: 't1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } });
  c.apply({ t: 'update', turnId: 't1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '!' } } });
  c.apply({ t: 'prompt', text: 'two', chips: [] });
  c.apply({ t: 'update', turnId: 't4', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ok' } } });
  assert.deepEqual(c.promptTurns, [1, 4]);
});

test('reasoning becomes one collapsed Thinking entry before the call and the answer', () => {
  const c = new Conversation();
  c.apply({ t: 'prompt', text: 'what do the notes say?', chips: [] });
  const first = c.apply(up({ sessionUpdate: 'thinking', content: { type: 'text', text: 'Read the ' } }));
  const again = c.apply(up({ sessionUpdate: 'thinking', content: { type: 'text', text: 'notes first.' } }));
  assert.equal(first, again, 'chunks grow one Thinking entry');
  c.apply(up({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'read notes.txt', kind: 'read', status: 'pending', rawInput: { path: 'notes.txt' } }));
  c.apply(up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Ship on Friday.' } }));
  assert.deepEqual(c.entries.map((e) => e.type), ['user', 'thinking', 'tool', 'answer']);
  assert.equal(c.entries[1].type === 'thinking' && c.entries[1].text, 'Read the notes first.');
  c.apply(up({
    sessionUpdate: 'usage_update', inputTokens: 1, outputTokens: 1, cacheReadTokens: 0,
    sessionInputTokens: 1, sessionOutputTokens: 1, sessionCacheReadTokens: 0,
    contextWindow: 4096, contextWindowSource: 'Ollama runtime',
  }));
  assert.equal(c.contextWindowSource, 'Ollama runtime');
});

test('a prompt waiting for the model endpoint shows one line that follows the queue', () => {
  const c = new Conversation();
  const first = c.apply(up({ sessionUpdate: 'model_queue', status: 'queued', ahead: 3 }));
  const again = c.apply(up({ sessionUpdate: 'model_queue', status: 'queued', ahead: 0 }));
  assert.equal(first, again, 'the same line is updated');
  assert.deepEqual(c.entries, [{ type: 'notice', level: 'info', text: 'waiting for the model endpoint (0 ahead)' }]);
  c.apply(up({ sessionUpdate: 'model_queue', status: 'running' }));
  assert.deepEqual(c.entries, [{ type: 'notice', level: 'info', text: 'waited for the model endpoint' }]);
  c.apply(up({ sessionUpdate: 'model_queue', status: 'queued', ahead: 1 }));
  assert.equal(c.entries.length, 2, 'a later wait has a line of its own');
});

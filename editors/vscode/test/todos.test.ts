import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Conversation, type PanelEvent } from '../src/conversation';
import type { SessionUpdate } from '../src/protocol';
import { todoMark, todosOf, todoSummary } from '../src/todos';

const up = (update: SessionUpdate): PanelEvent => ({ t: 'update', update, at: 1000 });
const call = (id: string, todos: unknown[]): PanelEvent =>
  up({ sessionUpdate: 'tool_call', toolCallId: id, title: 'to-do list', kind: 'think', status: 'pending', rawInput: { todos } });

test('todo_write calls become one checklist, replaced in place by the next call', () => {
  const c = new Conversation();
  c.apply({ t: 'prompt', text: 'plan it', chips: [] });
  const first = c.apply(call('t1', [{ content: 'read', status: 'in_progress' }, { content: 'edit' }]));
  c.apply(up({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed', phase: 'delivered', content: [] }));
  c.apply(up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'working' } }));
  const second = c.apply(call('t2', [{ content: 'read', status: 'completed' }, { content: 'edit', status: 'in_progress' }]));
  assert.equal(first, second, 'the same entry is redrawn');
  assert.deepEqual(c.entries.map((e) => e.type), ['user', 'todos', 'answer']);
  assert.ok(second !== undefined && typeof second === 'object' && second.type === 'todos');
  assert.deepEqual(second.items, [{ content: 'read', status: 'completed' }, { content: 'edit', status: 'in_progress' }]);
  assert.equal(second.updates, 2);
  assert.equal(c.cards.size, 0, 'no tool card for the list');
  c.apply({ t: 'clear' });
  assert.equal(c.apply(call('t3', [{ content: 'again', status: 'pending' }])), c.entries[0]);
});

test('only a well-formed list is a checklist; marks and summary', () => {
  assert.equal(todosOf({ todos: [{ content: '', status: 'pending' }] }), undefined);
  assert.equal(todosOf({ todos: [{ content: 'x', status: 'done' }] }), undefined);
  assert.equal(todosOf({ todos: 'x' }), undefined);
  assert.equal(todosOf({ command: 'ls', todos: [] }), undefined);
  assert.deepEqual(todosOf({ todos: [] }), []);
  assert.deepEqual([todoMark('pending'), todoMark('in_progress'), todoMark('completed')], ['[ ]', '[~]', '[x]']);
  assert.equal(todoSummary([{ content: 'a', status: 'completed' }, { content: 'b', status: 'pending' }]), '1 of 2 done');
});

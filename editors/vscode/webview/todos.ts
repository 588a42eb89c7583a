/**
 * The model's to-do list as a checklist block of the panel: a box per item (checked when
 * completed, a spinner-free "in progress" mark otherwise), its text struck through when done,
 * and "n of m done" in the head. Redrawn in place when the model sends the list again.
 */

import type { TodoList } from '../src/todos';
import { todoMark, todoSummary } from '../src/todos';
import { h, icon } from './dom';

const ITEM_ICON = { pending: 'circle-large-outline', in_progress: 'circle-large-filled', completed: 'pass-filled' };

/** The checklist block of `list`. */
export function todoBlock(list: TodoList): HTMLElement {
  const items = list.items.map((item) => {
    const li = h('li', { class: `todo ${item.status}`, 'data-status': item.status, 'aria-label': `${todoMark(item.status)} ${item.content}` },
      icon(ITEM_ICON[item.status], 'todo-mark'), h('span', { class: 'todo-text' }, item.content));
    return li;
  });
  return h('div', { class: 'entry todos', role: 'group', 'aria-label': 'To-do list' },
    h('div', { class: 'todos-head' }, icon('checklist'), ' To-do ', h('span', { class: 'todos-summary' }, todoSummary(list.items))),
    h('ul', { class: 'todo-list' }, ...items));
}

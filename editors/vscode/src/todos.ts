/**
 * The model's to-do list (`todo_write`, the whole list each time) as the panel shows it: one
 * checklist per conversation, replaced in place by each new call. Pure: no `vscode`, no DOM.
 * A call is recognised by its arguments (`{todos: [{content, status}]}`), as the server sends
 * them in the `tool_call` update's `rawInput`.
 */

export type TodoStatus = 'pending' | 'in_progress' | 'completed';

export interface TodoItem {
  content: string;
  status: TodoStatus;
}

/** The checklist entry of the panel's conversation. */
export interface TodoList {
  type: 'todos';
  items: TodoItem[];
  /** How many times the model sent the list (1 for the first). */
  updates: number;
}

const STATUSES: readonly string[] = ['pending', 'in_progress', 'completed'];

/** The items of a `todo_write` call's arguments; undefined when they are not a to-do list. */
export function todosOf(rawInput: Record<string, unknown> | undefined): TodoItem[] | undefined {
  const todos = rawInput?.todos;
  if (!Array.isArray(todos) || Object.keys(rawInput ?? {}).length !== 1) {
    return undefined;
  }
  const items: TodoItem[] = [];
  for (const t of todos) {
    if (typeof t !== 'object' || t === null) {
      return undefined;
    }
    const { content, status } = t as { content?: unknown; status?: unknown };
    if (typeof content !== 'string' || content === '') {
      return undefined;
    }
    const s = status ?? 'pending';
    if (typeof s !== 'string' || !STATUSES.includes(s)) {
      return undefined;
    }
    items.push({ content, status: s as TodoStatus });
  }
  return items;
}

/** `[x]`, `[~]` or `[ ]`: how a status reads in text (the transcript, the card's label). */
export function todoMark(status: TodoStatus): string {
  return status === 'completed' ? '[x]' : status === 'in_progress' ? '[~]' : '[ ]';
}

/** "2 of 5 done". */
export function todoSummary(items: TodoItem[]): string {
  return `${items.filter((i) => i.status === 'completed').length} of ${items.length} done`;
}

/**
 * The conversation the Ink panel shows, as data: prompts, answers, tool-call cards (sub-agent
 * calls nested under their task), inline approvals and turn outcomes, built from the events
 * the extension forwards (prompts, `ink/session/update`s, results, approvals). Pure: no
 * `vscode` and no DOM; the extension uses it to match approvals to cards, the webview bundle
 * renders it (webview/main.ts), and node:test checks it.
 */

import type { SessionPromptResult, SessionUpdate, StopReason, ToolKind } from './protocol';
import { queueLine } from './queue';
import { type TodoList, todosOf } from './todos';

/** A file or selection a prompt was asked about (shown as a chip). */
export interface Chip {
  label: string;
  path: string;
  /** 0-based lines of a selection. */
  startLine?: number;
  endLine?: number;
}

/** How files attached beyond the first reach the model: a last paragraph of the prompt. */
export const ALSO_ATTACHED = 'Also attached: ';

/** A prompt and its extra attachments (`withAttachments` undone, for replayed prompts). */
export function splitAttachments(text: string): { text: string; paths: string[] } {
  const at = text.lastIndexOf(`\n\n${ALSO_ATTACHED}`);
  if (at < 0 || text.indexOf('\n', at + 2) >= 0) {
    return { text, paths: [] };
  }
  return { text: text.slice(0, at), paths: text.slice(at + 2 + ALSO_ATTACHED.length).split(', ') };
}

/** The prompt sent for `text` with further attached files (relative paths). */
export function withAttachments(text: string, paths: string[]): string {
  return paths.length === 0 ? text : `${text}\n\n${ALSO_ATTACHED}${paths.join(', ')}`;
}

export type ApprovalKind = 'command' | 'edit';

/** A question the user answers on the card (or in the native diff / modal). */
export interface Approval {
  id: string;
  kind: ApprovalKind;
  message: string;
  detail?: string;
  /** A command approval that also offers "Always in this project" (a rule saved for it). */
  project?: boolean;
}

/** One event of the panel's log: the webview is a function of this list. */
export type PanelEvent =
  | { t: 'prompt'; text: string; chips: Chip[] }
  | { t: 'update'; update: SessionUpdate; at?: number; turnId?: string }
  | { t: 'result'; result: SessionPromptResult }
  | { t: 'failure'; message: string }
  | { t: 'approval'; approval: Approval; toolCallId?: string }
  | { t: 'approvalDone'; id: string; answer: string }
  | { t: 'clear'; title?: string };

export type CardStatus = 'queued' | 'running' | 'done' | 'failed' | 'refused' | 'cancelled';

export interface ToolCard {
  type: 'tool';
  id: string;
  title: string;
  kind: ToolKind;
  status: CardStatus;
  rawInput: Record<string, unknown>;
  /** When the call started running (ms since epoch, the extension's clock). */
  startedAt?: number;
  durationMs?: number;
  output?: string;
  diff?: { path: string; oldText: string | null; newText: string };
  children: ToolCard[];
  approval?: Approval;
  /** What the user answered, once answered (shown in place of the buttons). */
  answered?: string;
  ran: boolean;
}

export type Entry =
  | { type: 'user'; text: string; chips: Chip[] }
  | { type: 'answer'; text: string }
  | { type: 'thinking'; text: string }
  | ToolCard
  | TodoList
  | { type: 'notice'; level: 'error' | 'warning' | 'info'; text: string }
  | { type: 'outcome'; stopReason: StopReason | 'failed'; text: string };

const OUTCOME: Record<StopReason, string> = {
  end_turn: 'done',
  max_tokens: 'stopped: output-token limit',
  max_turn_requests: 'stopped: turn limit',
  cancelled: 'cancelled',
  error: 'failed',
};

const REFUSED = /reject|refus|dismiss|readonly|not run|not changed|approv/i;

/** The conversation, updated event by event. `apply` says which entry changed (or was added). */
export class Conversation {
  readonly entries: Entry[] = [];
  readonly cards = new Map<string, ToolCard>();
  /** The line of a model request still waiting for the endpoint's limit. */
  private queueNotice: Entry | undefined;
  inputTokens = 0;
  outputTokens = 0;
  contextWindow: number | undefined;
  contextWindowSource: string | undefined;
  contextTokens: number | undefined;
  title = '';
  private readonly approvals = new Map<string, ToolCard | Approval>();
  /** The to-do checklist (one per conversation, replaced in place) and the calls that sent it. */
  private todos: TodoList | undefined;
  private readonly todoCalls = new Set<string>();
  /** The checkpoint number (turn id `t<N>`) of each prompt shown, in order; undefined until
   * the server names it (and for replayed prompts). "Rewind to here" uses it. */
  readonly promptTurns: (number | undefined)[] = [];

  /** Applies one event; returns the entry to (re)draw, the top-level card for nested calls. */
  apply(event: PanelEvent): Entry | 'cleared' | 'header' | undefined {
    switch (event.t) {
      case 'clear':
        this.entries.length = 0;
        this.cards.clear();
        this.approvals.clear();
        this.todos = undefined;
        this.todoCalls.clear();
        this.inputTokens = this.outputTokens = 0;
        this.contextWindow = this.contextTokens = undefined;
        this.contextWindowSource = undefined;
        this.title = event.title ?? '';
        this.promptTurns.length = 0;
        return 'cleared';
      case 'prompt':
        this.promptTurns.push(undefined);
        return this.push({ type: 'user', text: event.text, chips: event.chips });
      case 'update': {
        const turn = /^t(\d+)$/.exec(event.turnId ?? '');
        const last = this.promptTurns.length - 1;
        if (turn !== null && last >= 0 && this.promptTurns[last] === undefined) {
          this.promptTurns[last] = Number(turn[1]);
        }
        return this.update(event.update, event.at ?? Date.now());
      }
      case 'result': {
        const r = event.result;
        // The answer when it was not streamed (no answer since the turn's prompt).
        const turnStart = this.entries.map((e) => e.type).lastIndexOf('user');
        if (r.text !== '' && !this.entries.slice(turnStart + 1).some((e) => e.type === 'answer')) {
          this.push({ type: 'answer', text: r.text });
        }
        const text = r.stopReason === 'error' && r.error !== undefined ? `failed: ${r.error}` : OUTCOME[r.stopReason];
        return this.push({ type: 'outcome', stopReason: r.stopReason, text });
      }
      case 'failure':
        return this.push({ type: 'outcome', stopReason: 'failed', text: `failed: ${event.message}` });
      case 'approval': {
        const card = event.toolCallId === undefined ? undefined : this.cards.get(event.toolCallId);
        if (card === undefined) {
          // No card to put it on (e.g. a call of a session shown elsewhere): a notice of its own.
          this.approvals.set(event.approval.id, event.approval);
          return this.push({ type: 'notice', level: 'info', text: event.approval.message });
        }
        card.approval = event.approval;
        card.answered = undefined;
        this.approvals.set(event.approval.id, card);
        return this.top(card);
      }
      case 'approvalDone': {
        const owner = this.approvals.get(event.id);
        this.approvals.delete(event.id);
        if (owner === undefined || !('type' in owner)) {
          return undefined;
        }
        if (owner.approval?.id === event.id) {
          owner.approval = undefined;
          owner.answered = event.answer;
        }
        return this.top(owner);
      }
    }
  }

  /** The call a command approval is about: the newest call not yet running whose command
   * (or title) appears in the approval's message. */
  matchCommand(message: string): string | undefined {
    const waiting = [...this.cards.values()].filter((c) => c.status === 'queued').reverse();
    const byCommand = waiting.find((c) => typeof c.rawInput.command === 'string' && message.includes(c.rawInput.command));
    return (byCommand ?? waiting.find((c) => message.includes(c.title)) ?? waiting[0])?.id;
  }

  private push(entry: Entry): Entry {
    this.entries.push(entry);
    return entry;
  }

  private top(card: ToolCard): ToolCard {
    const slash = card.id.indexOf('/');
    return (slash > 0 ? this.cards.get(card.id.slice(0, slash)) : undefined) ?? card;
  }

  private update(u: SessionUpdate, at: number): Entry | 'header' | undefined {
    switch (u.sessionUpdate) {
      case 'user_message_chunk': {
        const c = u.context;
        const chips: Chip[] = [];
        if (c !== undefined) {
          const lines = c.firstLine === undefined ? '' : c.firstLine === c.lastLine ? `:${c.firstLine}` : `:${c.firstLine}-${c.lastLine}`;
          chips.push({
            label: `${c.path}${lines}`,
            path: c.path,
            startLine: c.firstLine === undefined ? undefined : c.firstLine - 1,
            endLine: c.lastLine === undefined ? undefined : c.lastLine - 1,
          });
        }
        const { text, paths } = splitAttachments(u.content.text);
        chips.push(...paths.map((p) => ({ label: p, path: p })));
        this.promptTurns.push(undefined);
        return this.push({ type: 'user', text, chips });
      }
      case 'agent_message_chunk': {
        if (u.content.type !== 'text' || u.content.text === '') {
          return undefined;
        }
        const last = this.entries[this.entries.length - 1];
        if (last?.type === 'answer') {
          last.text += u.content.text;
          return last;
        }
        return this.push({ type: 'answer', text: u.content.text });
      }
      case 'thinking': {
        if (u.content.text === '') {
          return undefined;
        }
        const last = this.entries[this.entries.length - 1];
        if (last?.type === 'thinking') {
          last.text += u.content.text;
          return last;
        }
        return this.push({ type: 'thinking', text: u.content.text });
      }
      case 'tool_call': {
        const items = u.parentToolCallId === undefined ? todosOf(u.rawInput) : undefined;
        if (items !== undefined) {
          this.todoCalls.add(u.toolCallId);
          if (this.todos !== undefined) {
            this.todos.items = items;
            this.todos.updates++;
            return this.todos;
          }
          this.todos = { type: 'todos', items, updates: 1 };
          return this.push(this.todos);
        }
        const card: ToolCard = {
          type: 'tool', id: u.toolCallId, title: u.title, kind: u.kind, status: 'queued',
          rawInput: u.rawInput ?? {}, children: [], ran: false,
        };
        this.cards.set(u.toolCallId, card);
        const parent = u.parentToolCallId === undefined ? undefined : this.cards.get(u.parentToolCallId);
        if (parent !== undefined) {
          parent.children.push(card);
          return this.top(parent);
        }
        return this.push(card);
      }
      case 'tool_call_update': {
        const card = this.cards.get(u.toolCallId);
        if (card === undefined) {
          return undefined; // also a to-do list's call: its checklist says it all
        }
        if (u.phase === 'running') {
          card.status = 'running';
          card.ran = true;
          card.startedAt = at;
        } else if (u.phase === 'settled') {
          card.status = u.status === 'failed' || u.status === 'cancelled' ? u.status : 'done';
          card.durationMs = u.durationMs;
        } else {
          const text = u.rawOutput?.text ?? textOf(u.content);
          card.output = text;
          for (const item of u.content ?? []) {
            if (item.type === 'diff') {
              card.diff = { path: item.path, oldText: item.oldText ?? null, newText: item.newText };
            }
          }
          if (u.status === 'cancelled') {
            card.status = 'cancelled'; // the user's stop ended it: not a failure
          } else if (u.status === 'failed') {
            card.status = !card.ran && REFUSED.test(text) ? 'refused' : 'failed';
          } else {
            card.status = 'done';
          }
        }
        return this.top(card);
      }
      case 'usage_update':
        this.inputTokens = u.inputTokens;
        this.outputTokens = u.outputTokens;
        this.contextWindow = u.contextWindow ?? this.contextWindow;
        this.contextWindowSource = u.contextWindowSource ?? this.contextWindowSource;
        this.contextTokens = u.contextTokens ?? this.contextTokens;
        return 'header';
      case 'error':
        return this.push({ type: 'notice', level: 'error', text: u.message });
      case 'warning':
        return this.push({ type: 'notice', level: 'warning', text: u.message });
      case 'compaction':
        if (u.phase === 'start') {
          return undefined;
        }
        return this.push(
          u.phase === 'failed'
            ? { type: 'notice', level: 'warning', text: `compaction failed: ${u.error ?? 'unknown error'}` }
            : { type: 'notice', level: 'info', text: `compacted the conversation: ${u.tokensBefore} → ${u.tokensAfter ?? '?'} tokens` },
        );
      case 'instructions_loaded':
        return this.push({ type: 'notice', level: 'info', text: `project instructions: ${u.paths.join(', ')}` });
      case 'model_queue': {
        // one line per wait, updated in place as the queue moves
        const line = this.queueNotice ?? this.push({ type: 'notice', level: 'info', text: '' });
        if (line.type === 'notice') {
          line.text = queueLine(u);
        }
        this.queueNotice = u.status === 'queued' ? line : undefined;
        return line;
      }
      case 'turn_end':
        return undefined;
    }
  }
}

function textOf(content: { type: string; content?: { type: string; text?: string } }[] | undefined): string {
  return (content ?? [])
    .map((c) => (c.type === 'content' && c.content?.type === 'text' ? (c.content.text ?? '') : ''))
    .join('');
}

/** Where a card's click leads: the file at a range, or (for an edit with a diff) the diff. */
export function targetOf(card: ToolCard): { path: string; startLine?: number; endLine?: number } | undefined {
  const input = card.rawInput;
  const path = typeof input.path === 'string' ? input.path : card.diff?.path;
  if (path === undefined || (card.kind !== 'read' && card.kind !== 'edit')) {
    return undefined;
  }
  const offset = typeof input.offset === 'number' ? input.offset : undefined;
  const limit = typeof input.limit === 'number' ? input.limit : undefined;
  if (offset === undefined) {
    return { path };
  }
  const start = Math.max(offset - 1, 0);
  return { path, startLine: start, endLine: limit === undefined ? start : start + limit - 1 };
}

/** "12.3k" style token counts for the header. */
export function formatTokens(n: number): string {
  return n < 1000 ? String(n) : n < 100_000 ? `${(n / 1000).toFixed(1)}k` : `${Math.round(n / 1000)}k`;
}

/** "3 s" / "1 m 05 s" for a running call. */
export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s`;
}

/**
 * DOM of the conversation's entries: user prompts with chips, answers as markdown (streamed
 * incrementally, code blocks with Copy / Insert), tool-call cards (kind icon, title that opens
 * the file or diff, status with elapsed time, inline approval, expandable output, nested
 * sub-agent calls), notices and turn outcomes. Plain DOM; text goes in as text, never as HTML,
 * except the markdown renderer's output (which escapes raw HTML).
 */

import type { Chip, Entry, ToolCard } from '../src/conversation';
import { formatElapsed, targetOf } from '../src/conversation';
import { renderMarkdown, stableEnd } from './markdown';
import { h, icon } from './dom';
import { todoBlock } from './todos';

const KIND_ICON: Record<string, string> = {
  read: 'file', edit: 'edit', search: 'search', execute: 'terminal', think: 'hubot', other: 'tools',
};
const STATUS_ICON: Record<string, string> = {
  queued: 'circle-large-outline', running: 'loading', done: 'pass', failed: 'error', refused: 'circle-slash',
  cancelled: 'debug-stop',
};
const OUTPUT_LINES = 60;
/** Characters of a streaming answer rendered per frame at most (whole blocks). */
const FRAME_BUDGET = 3000;

export function chipButton(chip: Chip, removable: boolean): HTMLElement {
  const label = h('span', { class: 'chip-label' }, icon('file'), ` ${chip.label}`);
  const chipEl = h('span', { class: 'chip' });
  const open = h('button', { class: 'chip-open', type: 'button', 'data-action': 'open-chip', title: `Open ${chip.label}` }, label);
  open.dataset.chip = JSON.stringify(chip);
  chipEl.append(open);
  if (removable) {
    chipEl.append(h('button', { class: 'chip-remove', type: 'button', 'data-action': 'remove-chip', 'aria-label': `Remove ${chip.label}` }, icon('close')));
  }
  return chipEl;
}

/** An answer's element with its incremental renderer. */
class AnswerView {
  readonly el = h('div', { class: 'entry answer markdown' });
  private readonly frozen = h('div', { class: 'frozen' });
  private readonly tail = h('div', { class: 'tail' });
  private done = 0;
  private shownTail = '';

  constructor() {
    this.el.append(this.frozen, this.tail);
  }

  /**
   * Shows `text`. At most about `FRAME_BUDGET` characters of it are rendered per call (a whole
   * block always): when more has arrived, the rest waits for the next frame (the tail is hidden
   * meanwhile) and `true` asks for it, so a burst never makes one long frame.
   */
  update(text: string): boolean {
    const end = stableEnd(text, this.done);
    let upTo = end;
    if (end - this.done > FRAME_BUDGET) {
      const within = stableEnd(text.slice(0, this.done + FRAME_BUDGET), this.done);
      upTo = within > this.done ? within : end;
    }
    if (upTo > this.done) {
      const block = h('div', { class: 'block' });
      block.innerHTML = renderMarkdown(text.slice(this.done, upTo));
      decorateCode(block);
      this.frozen.append(block);
      this.done = upTo;
    }
    const behind = upTo < end;
    const tail = behind ? '' : text.slice(this.done);
    if (tail !== this.shownTail) {
      this.shownTail = tail;
      this.tail.innerHTML = tail === '' ? '' : renderMarkdown(tail);
      decorateCode(this.tail);
    }
    return behind;
  }
}

/** Adds the Copy / Insert toolbar to every rendered code block. */
function decorateCode(root: HTMLElement): void {
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    const code = pre.querySelector('code');
    if (code === null || pre.parentElement?.classList.contains('code-block') === true) {
      continue;
    }
    code.classList.add('hljs');
    const lang = /language-(\S+)/.exec(code.className)?.[1] ?? '';
    const bar = h(
      'div',
      { class: 'code-bar' },
      h('span', { class: 'code-lang' }, lang),
      h('button', { type: 'button', class: 'code-copy', 'data-action': 'copy', title: 'Copy' }, icon('copy'), ' Copy'),
      h('button', { type: 'button', class: 'code-insert', 'data-action': 'insert', title: 'Insert at cursor' }, icon('insert'), ' Insert'),
    );
    const wrap = h('div', { class: 'code-block' });
    pre.replaceWith(wrap);
    wrap.append(bar, pre);
  }
}

/** Keeps one DOM node per entry and redraws what changed. */
export class EntryRenderer {
  private readonly nodes = new Map<Entry, HTMLElement>();
  private readonly answers = new Map<Entry, AnswerView>();

  constructor(private readonly root: HTMLElement) {}

  clear(): void {
    this.nodes.clear();
    this.answers.clear();
    this.root.replaceChildren();
  }

  /** Draws `entry` (appending it when new); true when it needs another frame to catch up. */
  draw(entry: Entry): boolean {
    if (entry.type === 'answer') {
      let view = this.answers.get(entry);
      if (view === undefined) {
        view = new AnswerView();
        this.answers.set(entry, view);
        this.nodes.set(entry, view.el);
        this.root.append(view.el);
      }
      return view.update(entry.text);
    }
    const el = this.build(entry);
    const old = this.nodes.get(entry);
    if (old === undefined) {
      this.root.append(el);
    } else {
      keepOpen(old, el);
      old.replaceWith(el);
    }
    this.nodes.set(entry, el);
    return false;
  }

  /** Refreshes the elapsed time of running cards. */
  tick(now: number): void {
    for (const el of Array.from(this.root.querySelectorAll<HTMLElement>('.card[data-status="running"] > .card-head .card-status'))) {
      const started = Number(el.dataset.started);
      if (started > 0) {
        el.lastChild!.textContent = ` running ${formatElapsed(now - started)}`;
      }
    }
  }

  private build(entry: Entry): HTMLElement {
    switch (entry.type) {
      case 'user':
        return h('div', { class: 'entry user' },
          h('button', { type: 'button', class: 'user-rewind', 'data-action': 'rewind', title: 'Rewind to here: files and conversation as just before this prompt' }, icon('discard')),
          h('div', { class: 'user-text' }, entry.text),
          entry.chips.length === 0 ? undefined : h('div', { class: 'chips' }, ...entry.chips.map((c) => chipButton(c, false))));
      case 'tool':
        return card(entry);
      case 'todos':
        return todoBlock(entry);
      case 'thinking':
        // collapsed: the reasoning is there to look at, the answer is what to read
        return h('details', { class: 'entry thinking', 'data-id': 'thinking' },
          h('summary', {}, icon('lightbulb'), ' Thinking'),
          h('div', { class: 'thinking-text' }, entry.text));
      case 'notice':
        return h('div', { class: `entry notice ${entry.level}`, role: entry.level === 'error' ? 'alert' : 'status' },
          icon(entry.level === 'info' ? 'info' : entry.level), ` ${entry.text}`);
      case 'outcome':
        return h('div', { class: `entry outcome ${entry.stopReason}` },
          icon(entry.stopReason === 'end_turn' ? 'check' : entry.stopReason === 'cancelled' ? 'debug-stop' : 'warning'), ` ${entry.text}`);
      case 'answer':
        return h('div');
    }
  }
}

/** Expanded outputs stay expanded when a card is redrawn. */
function keepOpen(old: HTMLElement, fresh: HTMLElement): void {
  const open = new Set(Array.from(old.querySelectorAll<HTMLDetailsElement>('details[open]')).map((d) => d.dataset.id));
  for (const d of Array.from(fresh.querySelectorAll<HTMLDetailsElement>('details'))) {
    if (open.has(d.dataset.id)) {
      d.open = true;
    }
  }
  // A reason being typed (and the focus) survive a redraw of the card.
  const typed = old.querySelector<HTMLInputElement>('input.reason');
  const again = fresh.querySelector<HTMLInputElement>('input.reason');
  if (typed !== null && again !== null) {
    again.value = typed.value;
    if (document.activeElement === typed) {
      queueMicrotask(() => again.focus());
    }
  }
}

function statusText(c: ToolCard): string {
  switch (c.status) {
    case 'queued':
      return c.approval !== undefined ? 'waiting for approval' : 'queued';
    case 'running':
      return `running ${formatElapsed(Date.now() - (c.startedAt ?? Date.now()))}`;
    case 'done':
      return c.durationMs === undefined ? 'done' : `done in ${c.durationMs < 1000 ? `${Math.round(c.durationMs)} ms` : `${(c.durationMs / 1000).toFixed(1)} s`}`;
    default:
      return c.status;
  }
}

function card(c: ToolCard): HTMLElement {
  const opens = c.diff !== undefined || targetOf(c) !== undefined;
  const title = opens
    ? h('button', { type: 'button', class: 'card-title link', 'data-action': 'open-card', title: c.diff !== undefined ? 'Open the diff' : 'Open the file' }, c.title)
    : h('span', { class: 'card-title' }, c.title);
  title.dataset.card = c.id;
  const status = h('span', { class: 'card-status' }, icon(STATUS_ICON[c.status] ?? 'circle', c.status === 'running' ? 'codicon-modifier-spin' : ''), ` ${statusText(c)}`);
  if (c.status === 'running' && c.startedAt !== undefined) {
    status.dataset.started = String(c.startedAt);
  }
  const el = h('div', { class: 'entry card', role: 'group', 'aria-label': `${c.title}: ${c.status}`, 'data-status': c.status, 'data-kind': c.kind },
    h('div', { class: 'card-head' }, icon(KIND_ICON[c.kind] ?? 'tools', 'kind'), title, status));
  el.dataset.card = c.id;
  if (c.approval !== undefined) {
    el.append(approvalBox(c));
  } else if (c.answered !== undefined) {
    el.append(h('div', { class: 'answered' }, icon('comment'), ` ${c.answered}`));
  }
  if (c.output !== undefined && c.output !== '') {
    const lines = c.output.split('\n');
    const shown = lines.length > OUTPUT_LINES ? [`… ${lines.length - OUTPUT_LINES} earlier lines`, ...lines.slice(-OUTPUT_LINES)] : lines;
    const details = h('details', { class: 'card-output' }, h('summary', {}, 'Output'), h('pre', {}, shown.join('\n')));
    details.dataset.id = c.id;
    el.append(details);
  }
  if (c.children.length > 0) {
    el.append(h('div', { class: 'children' }, ...c.children.map(card)));
  }
  return el;
}

function approvalBox(c: ToolCard): HTMLElement {
  const a = c.approval!;
  const box = h('div', { class: 'approval', role: 'group', 'aria-label': 'Approval' },
    h('div', { class: 'approval-message' }, a.message), a.detail === undefined ? undefined : h('pre', { class: 'approval-detail' }, a.detail));
  box.dataset.approval = a.id;
  const button = (choice: string, label: string, primary = false): HTMLElement => {
    const b = h('button', { type: 'button', class: primary ? 'primary' : 'secondary', 'data-action': 'answer', 'data-choice': choice }, label);
    b.dataset.approval = a.id;
    return b;
  };
  const reason = h('input', { type: 'text', class: 'reason', placeholder: 'Reason (optional)', 'aria-label': 'Reason for rejecting' });
  const buttons = a.kind === 'edit'
    ? [button('review', 'Review diff'), button('accept', 'Accept', true), button('reject', 'Reject')]
    : [
      button('allow_once', 'Allow once', true),
      button('allow_always', 'Always'),
      ...(a.project === true ? [button('allow_project', 'Always in this project')] : []),
      button('reject', 'Reject'),
    ];
  box.append(h('div', { class: 'approval-buttons' }, ...buttons, reason));
  return box;
}

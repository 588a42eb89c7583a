/**
 * The Ink panel's webview script: applies the extension's events to the conversation model,
 * redraws what changed once per animation frame, and runs the header (usage, approval mode)
 * and the prompt box (Enter sends, Shift+Enter newline, ↑/↓ history, `@file` mentions, attach
 * the selection, Stop). Draft, history and chips survive a reload through `setState`.
 * `window.__inkTrace` keeps per-delta latencies and frame gaps for bench/panel.mjs.
 */

import { type Chip, Conversation, type Entry, formatTokens, type PanelEvent, targetOf } from '../src/conversation';
import { chipButton, EntryRenderer, h, icon } from './render';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface Status {
  running: boolean;
  sessionId?: string;
  approval: string;
}

interface Saved {
  draft: string;
  history: string[];
  chips: Chip[];
}

interface Trace {
  /** Per text delta: ms from its arrival at the extension to the end of the frame showing it. */
  latencies: number[];
  /** Per batch: ms from the extension's postMessage to its arrival here. */
  transits: number[];
  /** Gaps between animation frames while `watch(true)`. */
  gaps: number[];
  /** Time spent in each of our frame callbacks (drawing), ms. */
  work: number[];
  watching: boolean;
}

const vscode = acquireVsCodeApi();
const saved: Saved = { draft: '', history: [], chips: [], ...((vscode.getState() as Partial<Saved> | undefined) ?? {}) };
const trace: Trace = { latencies: [], transits: [], gaps: [], work: [], watching: false };
let watchGeneration = 0;
(window as unknown as { __inkTrace: Trace & { watch(on: boolean): void } }).__inkTrace = Object.assign(trace, {
  /** Starts (clearing `gaps`) or stops recording the gaps between animation frames. */
  watch(on: boolean): void {
    const mine = ++watchGeneration;
    trace.watching = on;
    if (!on) {
      return;
    }
    trace.gaps = [];
    let last = performance.now();
    const loop = (t: number): void => {
      if (mine === watchGeneration) {
        trace.gaps.push(t - last);
        last = t;
        requestAnimationFrame(loop);
      }
    };
    requestAnimationFrame(loop);
  },
});

let conv = new Conversation();
let status: Status = { running: false, approval: 'ask' };
let chips: Chip[] = saved.chips;
let historyAt = saved.history.length;
const dirty = new Set<Entry>();
const arrivals: number[] = [];
let cleared = true;
let headerDirty = true;
let frameAsked = false;

// ---- layout ---------------------------------------------------------------------------------

const titleEl = h('span', { class: 'title' }, 'New session');
const usageEl = h('span', { class: 'usage', title: 'Tokens used in this session' });
const approvalSelect = h('select', { class: 'approval-mode', 'aria-label': 'Approval mode', title: 'What Ink may do without asking' }) as HTMLSelectElement;
for (const [value, label] of [['ask', 'Ask'], ['auto', 'Auto'], ['readonly', 'Read-only']]) {
  approvalSelect.append(h('option', { value }, label));
}
const header = h('header', { class: 'bar' }, titleEl, usageEl, h('label', { class: 'mode' }, icon('shield'), approvalSelect));
const log = h('main', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
const empty = h('div', { class: 'empty' }, 'Ask Ink about your code. Type @ to attach a file; the selection button attaches what you selected.');
const chipsRow = h('div', { class: 'chips input-chips' });
const prompt = h('textarea', { class: 'prompt', rows: '3', placeholder: 'Ask Ink… (Enter sends, Shift+Enter for a new line, @ attaches a file)', 'aria-label': 'Prompt' }) as HTMLTextAreaElement;
const mentionList = h('ul', { class: 'mentions', role: 'listbox', 'aria-label': 'Files', hidden: '' });
const attachButton = h('button', { type: 'button', class: 'secondary icon-button', 'data-action': 'attach', title: 'Attach the current selection' }, icon('selection'), ' Selection');
const sendButton = h('button', { type: 'button', class: 'primary', 'data-action': 'send', title: 'Send (Enter)' }, icon('send'), ' Send');
const stopButton = h('button', { type: 'button', class: 'danger', 'data-action': 'stop', title: 'Stop the running turn', hidden: '' }, icon('debug-stop'), ' Stop');
const footer = h('footer', { class: 'composer' }, chipsRow, mentionList, prompt, h('div', { class: 'composer-buttons' }, attachButton, h('span', { class: 'spacer' }), stopButton, sendButton));
const renderer = new EntryRenderer(log);
document.getElementById('app')!.append(header, empty, log, footer);
prompt.value = saved.draft;

// ---- the frame loop -------------------------------------------------------------------------

function ask(): void {
  if (!frameAsked) {
    frameAsked = true;
    requestAnimationFrame(frame);
  }
}

function note(change: ReturnType<Conversation['apply']>): void {
  if (change === 'cleared') {
    cleared = true;
    dirty.clear();
  } else if (change === 'header') {
    headerDirty = true;
  } else if (change !== undefined) {
    dirty.add(change);
  }
}

function frame(): void {
  const started = performance.now();
  frameAsked = false;
  const stick = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  const behind: Entry[] = [];
  if (cleared) {
    cleared = false;
    renderer.clear();
    for (const e of conv.entries) {
      if (renderer.draw(e)) {
        behind.push(e);
      }
    }
    headerDirty = true;
  } else {
    for (const e of dirty) {
      if (renderer.draw(e)) {
        behind.push(e);
      }
    }
  }
  dirty.clear();
  for (const e of behind) {
    dirty.add(e);
  }
  if (headerDirty) {
    headerDirty = false;
    drawHeader();
  }
  empty.hidden = conv.entries.length > 0;
  if (stick) {
    log.scrollTop = log.scrollHeight;
  }
  if (behind.length > 0) {
    ask(); // the rest of a burst, next frame
  }
  const now = Date.now();
  if (trace.latencies.length < 100_000) {
    for (const at of arrivals) {
      trace.latencies.push(now - at);
    }
  }
  arrivals.length = 0;
  if (trace.work.length < 100_000) {
    trace.work.push(performance.now() - started);
  }
}

function drawHeader(): void {
  titleEl.textContent = firstPrompt() ?? 'New session';
  titleEl.title = titleEl.textContent;
  let usage = conv.inputTokens + conv.outputTokens === 0 ? '' : `↑${formatTokens(conv.inputTokens)} ↓${formatTokens(conv.outputTokens)}`;
  if (conv.contextWindow !== undefined && conv.contextTokens !== undefined && conv.contextWindow > 0) {
    usage += ` · ${Math.round((100 * conv.contextTokens) / conv.contextWindow)}% of ${formatTokens(conv.contextWindow)}`;
  }
  usageEl.textContent = usage;
  approvalSelect.value = status.approval;
  stopButton.hidden = !status.running;
  sendButton.hidden = status.running;
}

function firstPrompt(): string | undefined {
  const first = conv.entries.find((e) => e.type === 'user');
  return first?.type === 'user' ? first.text.split('\n')[0] : undefined;
}

setInterval(() => renderer.tick(Date.now()), 1000);

// ---- messages from the extension ------------------------------------------------------------

window.addEventListener('message', (msg: MessageEvent) => {
  const m = msg.data as { t: string; [k: string]: unknown };
  switch (m.t) {
    case 'replay':
      conv = new Conversation();
      for (const e of m.events as PanelEvent[]) {
        conv.apply(e);
      }
      status = m.status as Status;
      cleared = true;
      break;
    case 'events':
      // One batch in flight: the extension sends the next (all that arrived since) on this ack.
      vscode.postMessage({ t: 'ack' });
      if (typeof m.sentAt === 'number' && trace.transits.length < 100_000) {
        trace.transits.push(Date.now() - m.sentAt);
      }
      for (const e of m.events as PanelEvent[]) {
        note(conv.apply(e));
        if (e.t === 'update' && e.update.sessionUpdate === 'agent_message_chunk' && e.at !== undefined) {
          arrivals.push(e.at);
        }
      }
      break;
    case 'status':
      status = m.status as Status;
      headerDirty = true;
      break;
    case 'mentions':
      // Only the answer to what is typed now (answers to earlier keystrokes may come late).
      if (m.query === mentionQuery()) {
        showMentions(m.files as Chip[]);
      }
      return;
    case 'attach':
      if (m.chip !== null) {
        addChip(m.chip as Chip);
      }
      return;
    case 'focus':
      prompt.focus();
      return;
  }
  ask();
});

// ---- clicks (one delegated listener) ---------------------------------------------------------

document.addEventListener('click', (ev) => {
  const target = (ev.target as HTMLElement).closest<HTMLElement>('[data-action]');
  if (target === null) {
    return;
  }
  switch (target.dataset.action) {
    case 'send':
      send();
      return;
    case 'stop':
      vscode.postMessage({ t: 'stop' });
      return;
    case 'attach':
      vscode.postMessage({ t: 'attachSelection' });
      return;
    case 'copy':
    case 'insert': {
      const code = target.closest('.code-block')?.querySelector('code')?.textContent ?? '';
      vscode.postMessage({ t: target.dataset.action, text: code });
      return;
    }
    case 'open-chip': {
      const chip = JSON.parse(target.dataset.chip ?? '{}') as Chip;
      vscode.postMessage({ t: 'open', path: chip.path, startLine: chip.startLine, endLine: chip.endLine });
      return;
    }
    case 'remove-chip': {
      const index = Array.from(chipsRow.children).indexOf(target.closest('.chip')!);
      chips.splice(index, 1);
      drawChips();
      prompt.focus();
      return;
    }
    case 'open-card': {
      const card = conv.cards.get(target.dataset.card ?? '');
      if (card?.diff !== undefined) {
        vscode.postMessage({ t: 'diff', ...card.diff });
      } else if (card !== undefined) {
        vscode.postMessage({ t: 'open', ...targetOf(card) });
      }
      return;
    }
    case 'answer': {
      const box = target.closest('.approval');
      const reason = box?.querySelector<HTMLInputElement>('input.reason')?.value ?? '';
      vscode.postMessage({ t: 'answer', id: target.dataset.approval, choice: target.dataset.choice, reason });
      return;
    }
  }
});

approvalSelect.addEventListener('change', () => vscode.postMessage({ t: 'setApproval', mode: approvalSelect.value }));

// ---- the prompt box -------------------------------------------------------------------------

function persist(): void {
  vscode.setState({ draft: prompt.value, history: saved.history.slice(-100), chips } satisfies Saved);
}

function send(): void {
  const text = prompt.value.trim();
  if (text === '' || status.running) {
    return;
  }
  vscode.postMessage({ t: 'send', text, chips });
  saved.history.push(text);
  historyAt = saved.history.length;
  prompt.value = '';
  chips = [];
  drawChips();
  persist();
}

function addChip(chip: Chip): void {
  if (!chips.some((c) => c.label === chip.label)) {
    chips.push(chip);
    drawChips();
    persist();
  }
  prompt.focus();
}

function drawChips(): void {
  chipsRow.replaceChildren(...chips.map((c) => chipButton(c, true)));
}

let mentionAt = -1;
let mentionIndex = 0;

function mentionQuery(): string | undefined {
  const before = prompt.value.slice(0, prompt.selectionStart);
  const m = /(^|\s)@([\w./-]*)$/.exec(before);
  mentionAt = m === null ? -1 : before.length - m[2].length - 1;
  return m?.[2];
}

function showMentions(files: Chip[]): void {
  if (mentionQuery() === undefined || files.length === 0) {
    mentionList.hidden = true;
    return;
  }
  mentionIndex = 0;
  mentionList.replaceChildren(
    ...files.map((f, i) => {
      const li = h('li', { role: 'option', id: `mention-${i}`, 'aria-selected': String(i === 0) }, icon('file'), ` ${f.label}`);
      li.dataset.chip = JSON.stringify(f);
      li.addEventListener('mousedown', (e) => {
        e.preventDefault();
        pickMention(li);
      });
      return li;
    }),
  );
  mentionList.hidden = false;
  prompt.setAttribute('aria-activedescendant', 'mention-0');
}

function moveMention(step: number): void {
  const items = Array.from(mentionList.children) as HTMLElement[];
  mentionIndex = (mentionIndex + step + items.length) % items.length;
  items.forEach((li, i) => li.setAttribute('aria-selected', String(i === mentionIndex)));
  prompt.setAttribute('aria-activedescendant', `mention-${mentionIndex}`);
}

function pickMention(li: HTMLElement): void {
  const chip = JSON.parse(li.dataset.chip ?? '{}') as Chip;
  const end = prompt.selectionStart;
  if (mentionAt >= 0) {
    prompt.value = `${prompt.value.slice(0, mentionAt)}@${chip.label} ${prompt.value.slice(end)}`;
    const caret = mentionAt + chip.label.length + 2;
    prompt.setSelectionRange(caret, caret);
  }
  mentionList.hidden = true;
  prompt.removeAttribute('aria-activedescendant');
  addChip(chip);
}

prompt.addEventListener('input', () => {
  persist();
  const query = mentionQuery();
  if (query === undefined) {
    mentionList.hidden = true;
  } else {
    vscode.postMessage({ t: 'mention', query });
  }
});

prompt.addEventListener('keydown', (ev) => {
  if (!mentionList.hidden) {
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      moveMention(ev.key === 'ArrowDown' ? 1 : -1);
      ev.preventDefault();
      return;
    }
    if (ev.key === 'Enter' || ev.key === 'Tab') {
      pickMention(mentionList.children[mentionIndex] as HTMLElement);
      ev.preventDefault();
      return;
    }
    if (ev.key === 'Escape') {
      mentionList.hidden = true;
      ev.preventDefault();
      return;
    }
  }
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    send();
  } else if (ev.key === 'ArrowUp' && historyAt > 0 && (prompt.value === '' || prompt.value === saved.history[historyAt]) && prompt.selectionStart === prompt.selectionEnd) {
    historyAt--;
    prompt.value = saved.history[historyAt];
    ev.preventDefault();
  } else if (ev.key === 'ArrowDown' && prompt.selectionStart === prompt.value.length && historyAt < saved.history.length) {
    historyAt++;
    prompt.value = saved.history[historyAt] ?? '';
    ev.preventDefault();
  } else if (ev.key === 'Escape' && status.running) {
    vscode.postMessage({ t: 'stop' });
  }
});

drawChips();
vscode.postMessage({ t: 'ready' });

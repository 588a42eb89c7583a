/**
 * The Ink panel's webview script: applies the extension's events to the conversation model,
 * redraws what changed once per animation frame, runs the header (usage, approval mode) and
 * routes clicks; the prompt box is composer.ts.
 * `window.__inkTrace` keeps per-delta latencies and frame gaps for bench/panel.mjs.
 */

import type { Suggestion } from '../src/completionItems';
import { type Chip, Conversation, type Entry, formatTokens, type PanelEvent, targetOf } from '../src/conversation';
import { Composer, type VsCodeApi } from './composer';
import { h, icon } from './dom';
import { EntryRenderer } from './render';

declare function acquireVsCodeApi(): VsCodeApi;

interface Status {
  running: boolean;
  sessionId?: string;
  approval: string;
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
const dirty = new Set<Entry>();
const arrivals: number[] = [];
let cleared = true;
let headerDirty = true;
let frameAsked = false;

// ---- layout ---------------------------------------------------------------------------------

const titleEl = h('span', { class: 'title' }, 'New session');
const usageEl = h('span', { class: 'usage', title: 'Tokens used in this session' });
const approvalSelect = h('select', { class: 'approval-mode', 'aria-label': 'Approval mode', title: 'What Ink may do without asking' }) as HTMLSelectElement;
for (const [value, label] of [['ask', 'Ask'], ['auto', 'Auto'], ['readonly', 'Read-only'], ['plan', 'Plan']]) {
  approvalSelect.append(h('option', { value }, label));
}
const header = h('header', { class: 'bar' }, titleEl, usageEl, h('label', { class: 'mode' }, icon('shield'), approvalSelect));
const log = h('main', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
const empty = h('div', { class: 'empty' }, 'Ask Ink about your code. Type @ to attach a file; the selection button attaches what you selected.');
const composer = new Composer(vscode);
const renderer = new EntryRenderer(log);
document.getElementById('app')!.append(header, empty, log, composer.el);

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

let follow = false;

function frame(): void {
  const started = performance.now();
  frameAsked = false;
  // Layout is clean here (the browser laid out after the last frame): reading and scrolling
  // cost nothing now, where after this frame's changes they would force a reflow.
  if (follow) {
    follow = false;
    log.scrollTop = log.scrollHeight;
  }
  const stick = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  const changed = cleared || dirty.size > 0;
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
  if (behind.length > 0 || (stick && changed)) {
    follow = stick;
    ask(); // the rest of a burst, and following it to the end: next frame
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
  usageEl.title = conv.contextWindow === undefined
    ? ''
    : `window ${conv.contextWindow.toLocaleString('en')} tokens${conv.contextWindowSource === undefined ? '' : ` (${conv.contextWindowSource})`}`;
  approvalSelect.value = status.approval;
  composer.setRunning(status.running);
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
      composer.mentions(m.query, m.files as Suggestion[]);
      return;
    case 'attach':
      if (m.chip !== null) {
        composer.addChip(m.chip as Chip);
      }
      return;
    case 'focus':
      composer.focus();
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
  if (composer.click(target.dataset.action, target)) {
    return;
  }
  switch (target.dataset.action) {
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
    case 'open-card': {
      const card = conv.cards.get(target.dataset.card ?? '');
      if (card?.diff !== undefined) {
        vscode.postMessage({ t: 'diff', ...card.diff });
      } else if (card !== undefined) {
        vscode.postMessage({ t: 'open', ...targetOf(card) });
      }
      return;
    }
    case 'rewind': {
      // the prompt's place among the prompts shown; the extension knows its turn number
      const prompts = Array.from(document.querySelectorAll('.entry.user'));
      const entry = target.closest('.entry.user');
      vscode.postMessage({ t: 'rewind', prompt: entry === null ? -1 : prompts.indexOf(entry) });
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

vscode.postMessage({ t: 'ready' });

/**
 * The Ink panel's prompt box: Enter sends, Shift+Enter is a new line, ↑/↓ walk the history,
 * `@name` looks files and folders up (the extension answers; a picked file is attached as a
 * chip too), `@selection` / `@problems`, `/name` at the start a slash command, the
 * Selection button attaches the editor's selection, Stop (or Escape) cancels the running turn.
 * Draft, history and chips survive a reload through the webview's `setState`.
 */

import { completionToken, type Suggestion } from '../src/completionItems';
import type { Chip } from '../src/conversation';
import { h, icon } from './dom';
import { chipButton } from './render';

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

interface Saved {
  draft: string;
  history: string[];
  chips: Chip[];
}

export class Composer {
  readonly el: HTMLElement;
  private readonly chipsRow = h('div', { class: 'chips input-chips' });
  private readonly prompt = h('textarea', {
    class: 'prompt', rows: '3', 'aria-label': 'Prompt',
    placeholder: 'Ask Ink… (Enter sends, Shift+Enter for a new line, @ attaches a file, / runs a prompt)',
  }) as HTMLTextAreaElement;
  private readonly mentionList = h('ul', { class: 'mentions', role: 'listbox', 'aria-label': 'Files', hidden: '' });
  private readonly sendButton = h('button', { type: 'button', class: 'primary', 'data-action': 'send', title: 'Send (Enter)' }, icon('send'), ' Send');
  private readonly stopButton = h('button', { type: 'button', class: 'danger', 'data-action': 'stop', title: 'Stop the running turn', hidden: '' }, icon('debug-stop'), ' Stop');
  private readonly saved: Saved;
  private chips: Chip[];
  private historyAt: number;
  private running = false;
  private mentionAt = -1;
  private mentionIndex = 0;

  constructor(private readonly vscode: VsCodeApi) {
    this.saved = { draft: '', history: [], chips: [], ...((vscode.getState() as Partial<Saved> | undefined) ?? {}) };
    this.chips = this.saved.chips;
    this.historyAt = this.saved.history.length;
    const attach = h('button', { type: 'button', class: 'secondary icon-button', 'data-action': 'attach', title: 'Attach the current selection' }, icon('selection'), ' Selection');
    this.el = h('footer', { class: 'composer' }, this.chipsRow, this.mentionList, this.prompt,
      h('div', { class: 'composer-buttons' }, attach, h('span', { class: 'spacer' }), this.stopButton, this.sendButton));
    this.prompt.value = this.saved.draft;
    this.prompt.addEventListener('input', () => this.onInput());
    this.prompt.addEventListener('keydown', (ev) => this.onKey(ev));
    this.drawChips();
  }

  /** Send or Stop, whichever applies. */
  setRunning(running: boolean): void {
    this.running = running;
    this.stopButton.hidden = !running;
    this.sendButton.hidden = running;
  }

  focus(): void {
    this.prompt.focus();
  }

  /** A click on one of the box's `data-action` elements; false when it is not the box's. */
  click(action: string | undefined, target: HTMLElement): boolean {
    switch (action) {
      case 'send':
        this.send();
        return true;
      case 'stop':
        this.vscode.postMessage({ t: 'stop' });
        return true;
      case 'attach':
        this.vscode.postMessage({ t: 'attachSelection' });
        return true;
      case 'remove-chip':
        this.chips.splice(Array.from(this.chipsRow.children).indexOf(target.closest('.chip')!), 1);
        this.drawChips();
        this.persist();
        this.prompt.focus();
        return true;
      default:
        return false;
    }
  }

  /** The extension's answer to a mention look-up (only the one for what is typed now counts:
   * answers to earlier keystrokes may come late). */
  mentions(query: unknown, files: Suggestion[]): void {
    if (query !== this.mentionQuery()) {
      return;
    }
    if (files.length === 0) {
      this.mentionList.hidden = true;
      return;
    }
    this.mentionIndex = 0;
    this.mentionList.replaceChildren(
      ...files.map((f, i) => {
        const glyph = { file: 'file', folder: 'folder', selection: 'selection', problems: 'warning', command: 'symbol-event' }[f.kind];
        const li = h('li', { role: 'option', id: `mention-${i}`, 'aria-selected': String(i === 0) }, icon(glyph), ` ${f.label}`,
          ...(f.detail === undefined || f.detail === '' ? [] : [h('span', { class: 'mention-detail' }, ` ${f.detail}`)]));
        li.dataset.chip = JSON.stringify(f);
        li.addEventListener('mousedown', (e) => {
          e.preventDefault();
          this.pickMention(li);
        });
        return li;
      }),
    );
    this.mentionList.hidden = false;
    this.prompt.setAttribute('aria-activedescendant', 'mention-0');
  }

  addChip(chip: Chip): void {
    if (!this.chips.some((c) => c.label === chip.label)) {
      this.chips.push(chip);
      this.drawChips();
      this.persist();
    }
    this.prompt.focus();
  }

  private persist(): void {
    this.vscode.setState({ draft: this.prompt.value, history: this.saved.history.slice(-100), chips: this.chips } satisfies Saved);
  }

  private send(): void {
    const text = this.prompt.value.trim();
    if (text === '' || this.running) {
      return;
    }
    this.vscode.postMessage({ t: 'send', text, chips: this.chips });
    this.saved.history.push(text);
    this.historyAt = this.saved.history.length;
    this.prompt.value = '';
    this.chips = [];
    this.drawChips();
    this.persist();
  }

  private drawChips(): void {
    this.chipsRow.replaceChildren(...this.chips.map((c) => chipButton(c, true)));
  }

  /** The `@…` or `/…` being typed before the caret (with its trigger character). */
  private mentionQuery(): string | undefined {
    const found = completionToken(this.prompt.value.slice(0, this.prompt.selectionStart));
    this.mentionAt = found?.at ?? -1;
    return found?.token;
  }

  private moveMention(step: number): void {
    const items = Array.from(this.mentionList.children) as HTMLElement[];
    this.mentionIndex = (this.mentionIndex + step + items.length) % items.length;
    items.forEach((li, i) => li.setAttribute('aria-selected', String(i === this.mentionIndex)));
    this.prompt.setAttribute('aria-activedescendant', `mention-${this.mentionIndex}`);
  }

  private pickMention(li: HTMLElement): void {
    const item = JSON.parse(li.dataset.chip ?? '{}') as Suggestion;
    const p = this.prompt;
    if (this.mentionAt >= 0) {
      const end = p.selectionStart;
      p.value = `${p.value.slice(0, this.mentionAt)}${item.insert} ${p.value.slice(end)}`;
      const caret = this.mentionAt + item.insert.length + 1;
      p.setSelectionRange(caret, caret);
    }
    this.mentionList.hidden = true;
    p.removeAttribute('aria-activedescendant');
    if (item.kind === 'file') {
      this.addChip({ label: item.label, path: item.path });
    } else if (item.kind === 'selection') {
      this.vscode.postMessage({ t: 'attachSelection' }); // the selection's chip carries its range
    } else {
      this.persist();
      p.focus();
    }
  }

  private onInput(): void {
    this.persist();
    const query = this.mentionQuery();
    if (query === undefined) {
      this.mentionList.hidden = true;
    } else {
      this.vscode.postMessage({ t: 'mention', query });
    }
  }

  private onKey(ev: KeyboardEvent): void {
    const p = this.prompt;
    if (!this.mentionList.hidden) {
      if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
        this.moveMention(ev.key === 'ArrowDown' ? 1 : -1);
        ev.preventDefault();
        return;
      }
      if (ev.key === 'Enter' || ev.key === 'Tab') {
        this.pickMention(this.mentionList.children[this.mentionIndex] as HTMLElement);
        ev.preventDefault();
        return;
      }
      if (ev.key === 'Escape') {
        this.mentionList.hidden = true;
        ev.preventDefault();
        return;
      }
    }
    const history = this.saved.history;
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      this.send();
    } else if (ev.key === 'ArrowUp' && this.historyAt > 0 && (p.value === '' || p.value === history[this.historyAt]) && p.selectionStart === p.selectionEnd) {
      // ↑ in an empty box (or one showing a history entry) walks back through the prompts
      this.historyAt--;
      p.value = history[this.historyAt];
      ev.preventDefault();
    } else if (ev.key === 'ArrowDown' && p.selectionStart === p.value.length && this.historyAt < history.length) {
      this.historyAt++;
      p.value = history[this.historyAt] ?? '';
      ev.preventDefault();
    } else if (ev.key === 'Escape' && this.running) {
      this.vscode.postMessage({ t: 'stop' });
    }
  }
}

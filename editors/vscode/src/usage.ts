/**
 * Token accounting for display: the status bar text and tooltip from `usage_update` and
 * `compaction` updates. Pure: no `vscode` import (status.ts shows it).
 */

import type { SessionUpdate } from './protocol';

/** What the status bar shows; `undefined` fields are not known yet. */
export interface UsageView {
  text: string;
  tooltip: string;
}

/** `12345` → `12.3k`, `999` → `999`. */
export function short(tokens: number): string {
  if (tokens < 1000) {
    return String(tokens);
  }
  const k = tokens / 1000;
  return k >= 100 ? `${Math.round(k)}k` : `${k.toFixed(1).replace(/\.0$/, '')}k`;
}

/** Folds updates into the status bar's text (context share) and tooltip (turn and session). */
export class UsageTracker {
  private context: number | undefined;
  private window: number | undefined;
  private source: string | undefined;
  private turn = { input: 0, output: 0, cached: 0 };
  private session = { input: 0, output: 0, cached: 0 };
  private compacting = false;
  private compactions = 0;

  /** Returns true when the view changed. */
  update(update: SessionUpdate): boolean {
    if (update.sessionUpdate === 'usage_update') {
      this.context = update.contextTokens ?? this.context;
      this.window = update.contextWindow ?? this.window;
      this.source = update.contextWindowSource ?? this.source;
      this.turn = { input: update.inputTokens, output: update.outputTokens, cached: update.cacheReadTokens ?? 0 };
      this.session = {
        input: update.sessionInputTokens ?? this.session.input,
        output: update.sessionOutputTokens ?? this.session.output,
        cached: update.sessionCacheReadTokens ?? this.session.cached,
      };
      return true;
    }
    if (update.sessionUpdate === 'compaction') {
      this.compacting = update.phase === 'start';
      this.window = update.contextWindow ?? this.window;
      if (update.phase === 'end') {
        this.compactions += 1;
        this.context = update.tokensAfter ?? this.context;
      }
      return true;
    }
    return false;
  }

  /** A new session: nothing known. */
  reset(): void {
    this.context = undefined;
    this.turn = { input: 0, output: 0, cached: 0 };
    this.session = { input: 0, output: 0, cached: 0 };
    this.compactions = 0;
    this.compacting = false;
  }

  view(): UsageView {
    const share = this.context !== undefined && this.window ? Math.round((100 * this.context) / this.window) : undefined;
    let text = '$(hubot) Ink';
    if (this.compacting) {
      text += ' $(sync~spin) compacting';
    } else if (share !== undefined && this.context !== undefined && this.window !== undefined) {
      text += ` ${short(this.context)}/${short(this.window)} (${share}%)`;
    }
    const cached = (n: number): string => (n > 0 ? `, ${n.toLocaleString('en')} cached` : '');
    const lines = [
      this.context !== undefined && this.window !== undefined
        ? `Context: ${this.context.toLocaleString('en')} of ${this.window.toLocaleString('en')} tokens (${share}%)`
        : 'Context: not known yet',
      `Last turn: ${this.turn.input.toLocaleString('en')} in${cached(this.turn.cached)}, ${this.turn.output.toLocaleString('en')} out`,
      `Session: ${this.session.input.toLocaleString('en')} in${cached(this.session.cached)}, ${this.session.output.toLocaleString('en')} out`,
    ];
    if (this.window !== undefined && this.source !== undefined) {
      lines.splice(1, 0, `Window: ${this.window.toLocaleString('en')} tokens (${this.source})`);
    }
    if (this.compactions > 0) {
      lines.push(`Compacted ${this.compactions} time${this.compactions === 1 ? '' : 's'} in this window`);
    }
    return { text, tooltip: lines.join('\n') };
  }
}

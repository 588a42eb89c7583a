/**
 * The Ink status bar item: how full the model's context window is, with the turn's and the
 * session's tokens in the tooltip. Clicking it shows the transcript. Formatting is usage.ts.
 */

import * as vscode from 'vscode';

import type { SessionUpdateParams } from './protocol';
import { UsageTracker } from './usage';

export class UsageStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly tracker = new UsageTracker();

  constructor() {
    this.item = vscode.window.createStatusBarItem('ink.usage', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Ink context';
    this.item.command = 'ink.showTranscript';
    this.render();
    this.item.show();
  }

  /** Routes an `ink/session/update`. */
  onUpdate(params: SessionUpdateParams): void {
    if (this.tracker.update(params.update)) {
      this.render();
    }
  }

  /** A new session started in this window. */
  reset(): void {
    this.tracker.reset();
    this.render();
  }

  /** The text shown now (for tests and the log). */
  get text(): string {
    return this.item.text;
  }

  private render(): void {
    const view = this.tracker.view();
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
  }

  dispose(): void {
    this.item.dispose();
  }
}

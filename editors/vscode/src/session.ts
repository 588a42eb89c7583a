/**
 * Turns in VS Code: sends `ink/session/prompt` with the active document and selection, shows
 * the turn as a cancellable VS Code progress fed by the server's `$/progress`, streams the
 * transcript, and cancels through `ink/session/cancel`. Formatting and session tracking live
 * in transcript.ts; the client itself in client.ts.
 */

import * as vscode from 'vscode';
import { CancellationTokenSource, type LanguageClient, ResponseError, WorkDoneProgress } from 'vscode-languageclient/node';

import type { Chip, PanelEvent } from './conversation';
import {
  InkErrorCode,
  SESSION_CANCEL,
  SESSION_COMPACT,
  SESSION_LOAD,
  SESSION_PROMPT,
  type SessionCompactResult,
  type SessionLoadResult,
  type SessionPromptParams,
  type SessionPromptResult,
  type SessionUpdateParams,
} from './protocol';
import { SessionState, Transcript } from './transcript';

/** Where the prompt was asked from. */
export interface PromptContext {
  document?: vscode.TextDocument;
  selection?: vscode.Selection;
  /** Asked from the Ink panel: no Output channel, progress in the status bar. */
  fromPanel?: boolean;
  /** What the panel shows of the prompt (as typed, every chip), when not the prompt itself. */
  shown?: { text: string; chips: Chip[] };
}

/** One conversation with ink-ls in this window. */
export class InkSession {
  private readonly state = new SessionState();
  private readonly transcript: Transcript;
  private requestCancel: CancellationTokenSource | undefined;
  private tokenCounter = 0;

  /**
   * `onTurnEnd` runs after every prompt, answered or failed (stale reviews are withdrawn);
   * `emit` feeds the Ink panel; `onState` hears every change of `running` / `sessionId`.
   */
  constructor(
    private readonly getClient: () => Promise<LanguageClient>,
    readonly channel: vscode.OutputChannel,
    private readonly onTurnEnd: (result?: SessionPromptResult) => void,
    private readonly emit: (event: PanelEvent) => void = () => undefined,
    private readonly onState: () => void = () => undefined,
  ) {
    this.transcript = new Transcript((text) => channel.append(text));
  }

  get running(): boolean {
    return this.state.running;
  }

  get sessionId(): string | undefined {
    return this.state.sessionId;
  }

  /** Routes one `ink/session/update` into the transcript (other sessions are ignored). */
  onUpdate(params: SessionUpdateParams): void {
    const known = this.state.sessionId;
    if (this.state.accepts(params)) {
      this.emit({ t: 'update', update: params.update, at: Date.now(), turnId: params.turnId });
      this.transcript.update(params.update);
      if (known !== this.state.sessionId) {
        this.onState();
      }
    }
  }

  /** Asks `prompt`; resolves with the result when the turn ends (undefined if not sent). */
  async ask(prompt: string, context: PromptContext = {}): Promise<SessionPromptResult | undefined> {
    if (!this.state.begin()) {
      void vscode.window.showWarningMessage('Ink is still working on the last question. Cancel it first (Ink: Cancel).');
      return undefined;
    }
    const params: SessionPromptParams = { prompt, workDoneToken: `ink-vscode-${process.pid}-${++this.tokenCounter}` };
    if (this.state.sessionId !== undefined) {
      params.sessionId = this.state.sessionId;
    }
    let where: string | undefined;
    if (context.document !== undefined && context.document.uri.scheme === 'file') {
      params.textDocument = { uri: context.document.uri.toString() };
      where = vscode.workspace.asRelativePath(context.document.uri);
      const sel = context.selection;
      if (sel !== undefined && !sel.isEmpty) {
        params.range = {
          start: { line: sel.start.line, character: sel.start.character },
          end: { line: sel.end.line, character: sel.end.character },
        };
        const [first, last] = [sel.start.line + 1, sel.end.line + 1];
        where += first === last ? ` line ${first}` : ` lines ${first}-${last}`;
      }
    }
    this.transcript.prompt(prompt, where);
    this.emit({ t: 'prompt', ...(context.shown ?? { text: prompt, chips: chipsOf(context) }) });
    this.onState();
    if (context.fromPanel !== true) {
      this.channel.show(true);
    }
    const location = context.fromPanel === true ? vscode.ProgressLocation.Window : vscode.ProgressLocation.Notification;
    try {
      const client = await this.getClient();
      const result = await vscode.window.withProgress(
        { location, title: 'Ink', cancellable: true },
        (progress, cancel) => this.run(client, params, progress, cancel),
      );
      this.state.end(result.sessionId);
      this.onTurnEnd(result);
      this.emit({ t: 'result', result });
      this.onState();
      this.transcript.result(result);
      if (result.stopReason === 'error') {
        void vscode.window.showErrorMessage(`Ink: ${result.error ?? 'the model request failed'}`);
      }
      return result;
    } catch (err) {
      this.state.end();
      this.onTurnEnd();
      if (err instanceof ResponseError && err.code === InkErrorCode.SessionNotFound) {
        // The server no longer knows the session (closed, or the server restarted): the next
        // question starts a new one instead of failing the same way again.
        this.state.reset();
      }
      const message = describeError(err);
      this.transcript.failure(message);
      this.emit({ t: 'failure', message });
      this.onState();
      void vscode.window.showErrorMessage(`Ink: ${message}`);
      return undefined;
    }
  }

  /** Cancels the running turn (`ink/session/cancel`); false when nothing runs. */
  async cancel(): Promise<boolean> {
    if (!this.state.running) {
      return false;
    }
    const sessionId = this.state.sessionId;
    if (sessionId === undefined) {
      // The new session's id has not arrived yet: cancel the prompt request itself.
      this.requestCancel?.cancel();
      return true;
    }
    const client = await this.getClient();
    await client.sendRequest(SESSION_CANCEL, { sessionId });
    return true;
  }

  /** `ink/session/compact` of this window's session, with a progress notification. */
  async compact(): Promise<SessionCompactResult | undefined> {
    const sessionId = this.state.sessionId;
    if (sessionId === undefined || !this.state.begin()) {
      void vscode.window.showInformationMessage(this.state.running ? 'Ink: wait for the running question first.' : 'Ink: no conversation to compact yet.');
      return undefined;
    }
    try {
      const client = await this.getClient();
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Ink: compacting the conversation' },
        () => client.sendRequest<SessionCompactResult>(SESSION_COMPACT, { sessionId }),
      );
      this.state.end(sessionId);
      return result;
    } catch (err) {
      this.state.end(sessionId);
      const message = describeError(err);
      this.transcript.failure(message);
      void vscode.window.showErrorMessage(`Ink: ${message}`);
      return undefined;
    }
  }

  /** Starts a new session for the next prompt; false while a turn runs. */
  newSession(): boolean {
    if (this.state.running) {
      return false;
    }
    this.state.reset();
    this.transcript.newSession();
    this.emit({ t: 'clear' });
    this.onState();
    return true;
  }

  /**
   * Switches to session `sessionId` and replays its conversation from the server
   * (`ink/session/load`); undefined while a turn runs. Throws the server's refusal.
   */
  async load(sessionId: string): Promise<SessionLoadResult | undefined> {
    if (this.state.running) {
      return undefined;
    }
    const client = await this.getClient();
    this.state.reset();
    this.state.adopt(sessionId);
    this.transcript.newSession();
    this.emit({ t: 'clear' });
    try {
      return await client.sendRequest<SessionLoadResult>(SESSION_LOAD, { sessionId });
    } catch (err) {
      this.state.reset();
      throw err;
    } finally {
      this.onState();
    }
  }

  private async run(
    client: LanguageClient,
    params: SessionPromptParams,
    progress: vscode.Progress<{ message?: string }>,
    cancel: vscode.CancellationToken,
  ): Promise<SessionPromptResult> {
    const token = params.workDoneToken as string;
    const sub = client.onProgress(WorkDoneProgress.type, token, (value) => {
      if (value.kind !== 'end' && value.message !== undefined) {
        progress.report({ message: value.message });
      }
    });
    this.requestCancel = new CancellationTokenSource();
    const onCancel = cancel.onCancellationRequested(() => void this.cancel());
    try {
      return await client.sendRequest<SessionPromptResult>(SESSION_PROMPT, params, this.requestCancel.token);
    } finally {
      onCancel.dispose();
      sub.dispose();
      this.requestCancel.dispose();
      this.requestCancel = undefined;
    }
  }
}

/** The chip of the file (and lines) a prompt was asked about. */
function chipsOf(context: PromptContext): Chip[] {
  const doc = context.document;
  if (doc === undefined || doc.uri.scheme !== 'file') {
    return [];
  }
  const path = vscode.workspace.asRelativePath(doc.uri);
  const sel = context.selection;
  if (sel === undefined || sel.isEmpty) {
    return [{ label: path, path: doc.uri.fsPath }];
  }
  const lines = sel.start.line === sel.end.line ? `${sel.start.line + 1}` : `${sel.start.line + 1}-${sel.end.line + 1}`;
  return [{ label: `${path}:${lines}`, path: doc.uri.fsPath, startLine: sel.start.line, endLine: sel.end.line }];
}

/** One line for the user from a failed request (no stack traces). */
export function describeError(err: unknown): string {
  if (err instanceof ResponseError) {
    if (err.code === InkErrorCode.SessionNotFound) {
      return `${err.message} — ask again to start a new session`;
    }
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/**
 * Turns in VS Code: sends `ink/session/prompt` with the active document and selection, shows
 * the turn as a cancellable VS Code progress fed by the server's `$/progress`, streams the
 * transcript, and cancels through `ink/session/cancel`. Formatting and session tracking live
 * in transcript.ts; the client itself in client.ts.
 */

import * as vscode from 'vscode';
import { CancellationTokenSource, type LanguageClient, ResponseError, WorkDoneProgress } from 'vscode-languageclient/node';

import {
  InkErrorCode,
  SESSION_CANCEL,
  SESSION_COMPACT,
  SESSION_PROMPT,
  type SessionCompactResult,
  type SessionPromptParams,
  type SessionPromptResult,
  type SessionUpdateParams,
} from './protocol';
import { SessionState, Transcript } from './transcript';

/** Where the prompt was asked from. */
export interface PromptContext {
  document?: vscode.TextDocument;
  selection?: vscode.Selection;
}

/** One conversation with ink-ls in this window. */
export class InkSession {
  private readonly state = new SessionState();
  private readonly transcript: Transcript;
  private requestCancel: CancellationTokenSource | undefined;
  private tokenCounter = 0;

  /** `onTurnEnd` runs after every prompt, answered or failed (stale reviews are withdrawn). */
  constructor(
    private readonly getClient: () => Promise<LanguageClient>,
    readonly channel: vscode.OutputChannel,
    private readonly onTurnEnd: () => void,
  ) {
    this.transcript = new Transcript((text) => channel.append(text));
  }

  get running(): boolean {
    return this.state.running;
  }

  /** Routes one `ink/session/update` into the transcript (other sessions are ignored). */
  onUpdate(params: SessionUpdateParams): void {
    if (this.state.accepts(params)) {
      this.transcript.update(params.update);
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
    this.channel.show(true);
    try {
      const client = await this.getClient();
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Ink', cancellable: true },
        (progress, cancel) => this.run(client, params, progress, cancel),
      );
      this.state.end(result.sessionId);
      this.onTurnEnd();
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
    return true;
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

/** One line for the user from a failed request (no stack traces). */
function describeError(err: unknown): string {
  if (err instanceof ResponseError) {
    if (err.code === InkErrorCode.SessionNotFound) {
      return `${err.message} — ask again to start a new session`;
    }
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

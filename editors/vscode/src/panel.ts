/**
 * The "Ink" view in the activity bar: a webview (strict CSP with a nonce, theme colours, the
 * bundled script out/webview/main.js) fed from the panel's event log. The webview is a pure
 * function of that log, so a re-created view (hidden and shown, moved) is replayed whole; after
 * a window reload the current session is re-loaded from the server (`ink/session/load`).
 * Events are posted in batches with one batch in flight at a time: the webview acknowledges each,
 * and what arrives meanwhile goes in the next. A fast stream then costs as many IPC hops as the
 * channel carries (not one per delta, which queues up and lags on a remote workbench).
 */

import * as crypto from 'node:crypto';

import * as vscode from 'vscode';

import { Conversation, type PanelEvent } from './conversation';

export const VIEW_ID = 'ink.panel';
const ACK_TIMEOUT_MS = 1000;

/** Header facts that are not part of the conversation. */
export interface PanelStatus {
  running: boolean;
  sessionId?: string;
  approval: string;
}

/** What the webview asks of the extension (see webview/main.ts). */
export type WebviewMessage =
  | { t: 'ready' }
  | { t: 'ack' }
  | { t: 'send'; text: string; chips: { label: string; path: string; startLine?: number; endLine?: number }[] }
  | { t: 'stop' }
  | { t: 'answer'; id: string; choice: 'allow_once' | 'allow_always' | 'reject' | 'accept' | 'review'; reason?: string }
  | { t: 'open'; path: string; startLine?: number; endLine?: number }
  | { t: 'diff'; path: string; oldText: string | null; newText: string }
  | { t: 'copy'; text: string }
  | { t: 'insert'; text: string }
  | { t: 'mention'; query: string }
  | { t: 'attachSelection' }
  | { t: 'setApproval'; mode: string }
  | { t: 'command'; id: string }
  | { t: 'rewind'; prompt: number };

export class InkPanel implements vscode.WebviewViewProvider, vscode.Disposable {
  /** The conversation as the extension knows it (to match approvals to cards). */
  readonly conversation = new Conversation();
  private log: PanelEvent[] = [];
  private view: vscode.WebviewView | undefined;
  private pending: PanelEvent[] = [];
  private flushScheduled = false;
  private inFlight: ReturnType<typeof setTimeout> | undefined;
  private status: PanelStatus = { running: false, approval: 'ask' };
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly onMessage: (message: WebviewMessage) => void,
  ) {}

  get visible(): boolean {
    return this.view?.visible === true;
  }

  get empty(): boolean {
    return this.log.length === 0;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const roots = [vscode.Uri.joinPath(this.extensionUri, 'out', 'webview'), vscode.Uri.joinPath(this.extensionUri, 'media'),
      vscode.Uri.joinPath(this.extensionUri, 'node_modules', '@vscode', 'codicons', 'dist')];
    view.webview.options = { enableScripts: true, localResourceRoots: roots };
    view.webview.html = this.html(view.webview);
    this.disposables.push(
      view.webview.onDidReceiveMessage((m: WebviewMessage) => {
        if (m.t === 'ready') {
          // A new webview: everything so far in one message, then live batches.
          this.pending = [];
          this.landed();
          void view.webview.postMessage({ t: 'replay', events: this.log, status: this.status });
        } else if (m.t === 'ack') {
          this.landed();
          if (this.pending.length > 0) {
            this.schedule();
          }
          return;
        }
        this.onMessage(m);
      }),
      view.onDidDispose(() => {
        if (this.view === view) {
          this.view = undefined;
        }
      }),
    );
  }

  /** Records one conversation event and sends it to the view (batched). */
  record(event: PanelEvent): void {
    if (event.t === 'clear') {
      this.log = [];
    }
    this.log.push(event);
    this.conversation.apply(event);
    if (this.view === undefined) {
      return;
    }
    this.pending.push(event);
    this.schedule();
  }

  /** Updates the header (running, session, approval mode). */
  setStatus(status: Partial<PanelStatus>): void {
    this.status = { ...this.status, ...status };
    void this.view?.webview.postMessage({ t: 'status', status: this.status });
  }

  /** Sends a reply to one webview request (mention results, an attached selection). */
  post(message: Record<string, unknown>): void {
    void this.view?.webview.postMessage(message);
  }

  /** Shows the view and moves the focus to its prompt box. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    this.post({ t: 'focus' });
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  private schedule(): void {
    if (!this.flushScheduled && this.inFlight === undefined) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const events = this.pending;
    if (events.length === 0 || this.view === undefined || this.inFlight !== undefined) {
      return;
    }
    this.pending = [];
    // A batch the webview never acknowledges (it was torn down) must not stall the stream.
    this.inFlight = setTimeout(() => {
      this.inFlight = undefined;
      this.schedule();
    }, ACK_TIMEOUT_MS);
    void this.view.webview.postMessage({ t: 'events', events, sentAt: Date.now() });
  }

  private landed(): void {
    clearTimeout(this.inFlight);
    this.inFlight = undefined;
  }

  private html(webview: vscode.Webview): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const uri = (...parts: string[]): vscode.Uri => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...parts));
    const csp = [
      "default-src 'none'",
      `img-src ${webview.cspSource} data:`,
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${uri('node_modules', '@vscode', 'codicons', 'dist', 'codicon.css').toString()}">
<link rel="stylesheet" href="${uri('media', 'panel.css').toString()}">
<title>Ink</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${uri('out', 'webview', 'main.js').toString()}"></script>
</body>
</html>`;
  }
}

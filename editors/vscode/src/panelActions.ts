/**
 * What the Ink panel's controls do in VS Code: send a prompt with its chips, stop, answer an
 * approval, open a file at a range or a diff, copy / insert a code block, look up `@` mentions
 * and `/` commands (panelCompletion.ts), attach the current selection, switch the approval mode, pick a session.
 */

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import type { InlineApprovals } from './approvals';
import { type Chip, withAttachments } from './conversation';
import type { InkPanel, WebviewMessage } from './panel';
import { PanelCompletion } from './panelCompletion';
import { SESSION_CLOSE, SESSION_LIST, type SessionListResult } from './protocol';
import { describeError, type InkSession } from './session';
import { SECTION } from './settings';

export const SNAPSHOT_SCHEME = 'ink-snapshot';

/** Handles the panel's messages; `lastEditor` is the text editor the user last worked in. */
export class PanelActions implements vscode.Disposable {
  private readonly snapshots = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];
  private lastEditor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;
  private snapshotCounter = 0;
  /** `@` mentions and `/` commands of the prompt box, and Ink: Run Prompt…. */
  readonly completion: PanelCompletion;

  constructor(
    private readonly panel: InkPanel,
    private readonly session: InkSession,
    private readonly approvals: InlineApprovals,
    private readonly getClient: () => Promise<LanguageClient>,
    log: (line: string) => void = () => undefined,
  ) {
    this.completion = new PanelCompletion(getClient, log);
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SNAPSHOT_SCHEME, {
        provideTextDocumentContent: (uri) => this.snapshots.get(uri.toString()) ?? '',
      }),
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e !== undefined && e.document.uri.scheme === 'file') {
          this.lastEditor = e;
        }
      }),
    );
  }

  readonly handle = async (m: WebviewMessage): Promise<void> => {
    try {
      await this.dispatch(m);
    } catch (err) {
      void vscode.window.showErrorMessage(`Ink: ${describeError(err)}`);
    }
  };

  private async dispatch(m: WebviewMessage): Promise<void> {
    switch (m.t) {
      case 'send':
        await this.send(m.text, m.chips);
        return;
      case 'stop':
        await this.session.cancel();
        return;
      case 'answer':
        await this.approvals.answer(m);
        return;
      case 'open':
        await this.open(m.path, m.startLine, m.endLine);
        return;
      case 'diff': {
        const id = ++this.snapshotCounter;
        const file = this.resolve(m.path);
        const left = file.with({ scheme: SNAPSHOT_SCHEME, query: `${id}&before` });
        const right = file.with({ scheme: SNAPSHOT_SCHEME, query: `${id}&after` });
        this.snapshots.set(left.toString(), m.oldText ?? '');
        this.snapshots.set(right.toString(), m.newText);
        const name = vscode.workspace.asRelativePath(file);
        await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (Ink's edit)`);
        return;
      }
      case 'copy':
        await vscode.env.clipboard.writeText(m.text);
        void vscode.window.setStatusBarMessage('Ink: copied', 2000);
        return;
      case 'insert':
        await this.insert(m.text);
        return;
      case 'mention':
        this.panel.post({ t: 'mentions', query: m.query, files: await this.completion.suggest(m.query) });
        return;
      case 'attachSelection':
        this.panel.post({ t: 'attach', chip: this.selectionChip() ?? null });
        return;
      case 'setApproval':
        await vscode.workspace.getConfiguration(SECTION).update('approval', m.mode, vscode.ConfigurationTarget.Global);
        return;
      case 'command':
        await vscode.commands.executeCommand(m.id);
        return;
      case 'rewind':
        // "Rewind to here": the prompt's turn when the server named it, else the picker
        await vscode.commands.executeCommand('ink.rewind', this.panel.conversation.promptTurns[m.prompt]);
        return;
      case 'ready':
      case 'ack':
        return;
    }
  }

  /** The Sessions picker: resume one (its conversation re-loaded), or delete it. */
  async pickSession(): Promise<void> {
    const client = await this.getClient();
    const { sessions } = await client.sendRequest<SessionListResult>(SESSION_LIST, {});
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
    const remove: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: 'Delete session' };
    const items = (): (vscode.QuickPickItem & { id: string })[] =>
      sessions.map((s) => ({
        id: s.sessionId,
        label: s.title === '' ? '(untitled)' : s.title,
        description: `${s.updatedAt.replace('T', ' ').replace('Z', '')}${s.sessionId === this.session.sessionId ? ' · current' : ''}${s.running ? ' · running' : ''}`,
        buttons: [remove],
      }));
    pick.title = 'Ink: Sessions';
    pick.placeholder = sessions.length === 0 ? 'No sessions yet' : 'Resume a session (the trash button deletes it)';
    pick.items = items();
    const done = new Promise<void>((resolve) => {
      pick.onDidTriggerItemButton(async (e) => {
        await client.sendRequest(SESSION_CLOSE, { sessionId: e.item.id, delete: true });
        sessions.splice(sessions.findIndex((s) => s.sessionId === e.item.id), 1);
        pick.items = items();
        if (e.item.id === this.session.sessionId) {
          this.session.newSession();
        }
      });
      pick.onDidAccept(async () => {
        const chosen = pick.selectedItems[0];
        pick.hide();
        if (chosen !== undefined) {
          await this.resume(chosen.id);
        }
      });
      pick.onDidHide(() => resolve());
    });
    pick.show();
    await done;
    pick.dispose();
  }

  /** Resumes `sessionId` in the panel; a warning while a turn runs. */
  async resume(sessionId: string): Promise<void> {
    if ((await this.session.load(sessionId)) === undefined) {
      void vscode.window.showWarningMessage('Ink: stop the running turn before switching sessions.');
    }
  }

  private async send(text: string, chips: Chip[]): Promise<void> {
    const [first, ...rest] = chips;
    const prompt = withAttachments(text, rest.map((c) => vscode.workspace.asRelativePath(c.path)));
    let document: vscode.TextDocument | undefined;
    let selection: vscode.Selection | undefined;
    if (first !== undefined) {
      document = await vscode.workspace.openTextDocument(this.resolve(first.path));
      if (first.startLine !== undefined) {
        const end = document.lineAt(Math.min(first.endLine ?? first.startLine, document.lineCount - 1)).range.end;
        selection = new vscode.Selection(new vscode.Position(first.startLine, 0), end);
      }
    }
    await this.session.ask(prompt, { document, selection, fromPanel: true, shown: { text, chips } });
  }

  private resolve(path: string): vscode.Uri {
    if (path.startsWith('/')) {
      return vscode.Uri.file(path);
    }
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    return root === undefined ? vscode.Uri.file(path) : vscode.Uri.joinPath(root, path);
  }

  private async open(path: string, startLine?: number, endLine?: number): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(this.resolve(path));
    const options: vscode.TextDocumentShowOptions = { preview: true, viewColumn: vscode.ViewColumn.One };
    if (startLine !== undefined) {
      const last = Math.min(endLine ?? startLine, doc.lineCount - 1);
      options.selection = new vscode.Range(startLine, 0, last, doc.lineAt(last).text.length);
    }
    await vscode.window.showTextDocument(doc, options);
  }

  private async insert(text: string): Promise<void> {
    const editor = this.lastEditor;
    if (editor === undefined || editor.document.isClosed) {
      void vscode.window.showInformationMessage('Ink: open a file to insert the code into.');
      return;
    }
    const shown = await vscode.window.showTextDocument(editor.document, editor.viewColumn);
    await shown.edit((b) => {
      for (const sel of shown.selections) {
        b.replace(sel, text);
      }
    });
  }

  private selectionChip(): Chip | undefined {
    const editor = vscode.window.activeTextEditor ?? this.lastEditor;
    if (editor === undefined || editor.document.uri.scheme !== 'file') {
      return undefined;
    }
    const rel = vscode.workspace.asRelativePath(editor.document.uri);
    const sel = editor.selection;
    if (sel.isEmpty) {
      return { label: rel, path: editor.document.uri.fsPath };
    }
    const lines = sel.start.line === sel.end.line ? `${sel.start.line + 1}` : `${sel.start.line + 1}-${sel.end.line + 1}`;
    return { label: `${rel}:${lines}`, path: editor.document.uri.fsPath, startLine: sel.start.line, endLine: sel.end.line };
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

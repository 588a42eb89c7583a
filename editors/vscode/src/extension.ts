/**
 * Entry point: wires output channels, the edit reviewer, the language client and the commands
 * together. No logic of its own; every disposable goes into `context.subscriptions`.
 */

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import { TURN_ENDED_REASON } from './approval';
import { InlineApprovals } from './approvals';
import { createClient, sendSettings } from './client';
import { DEFAULT_APPROVAL_TIMEOUT_SECONDS } from './options';
import { showMcpServers } from './mcp';
import { InkPanel, VIEW_ID } from './panel';
import { SessionMemory } from './memory';
import { PanelActions } from './panelActions';
import { EditReviewer } from './review';
import { changedByTurn, reviewChanges, type ReviewFile, type RewindDeps, rewindSession } from './rewind';
import { describeError, InkSession } from './session';
import { readInkSettings, SECTION } from './settings';
import { UsageStatus } from './status';


let client: LanguageClient | undefined;
let starting: Promise<LanguageClient> | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Ink Server', { log: true });
  const transcriptChannel = vscode.window.createOutputChannel('Ink');
  const reviewer = new EditReviewer(
    (line) => log.appendLine(line),
    () => readInkSettings().approvalTimeoutSeconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  );
  const status = new UsageStatus();
  context.subscriptions.push(log, transcriptChannel, reviewer, status);

  const getClient = (): Promise<LanguageClient> => {
    if (starting === undefined) {
      const c = createClient({
        reviewer,
        outputChannel: log,
        subscriptions: context.subscriptions,
        onUpdate: (p) => {
          session.onUpdate(p);
          status.onUpdate(p);
        },
        askCommand: approvals.askCommand,
      });
      starting = c.start().then(
        () => (client = c),
        (err: unknown) => {
          starting = undefined;
          throw err;
        },
      );
    }
    return starting;
  };
  const stopClient = async (): Promise<void> => {
    const c = client;
    client = undefined;
    starting = undefined;
    reviewer.rejectAll();
    if (c !== undefined) {
      await c.stop();
    }
  };
  const memory = new SessionMemory(context);
  const panel = new InkPanel(context.extensionUri, (m) => {
    if (m.t === 'ready' && panel.empty && !session.running) {
      // A reloaded window: bring back the session the panel showed.
      const saved = memory.get();
      if (saved !== undefined) {
        log.info(`panel: restoring session ${saved}`);
        actions.resume(saved).catch((err: unknown) => {
          log.warn(`panel: could not restore session ${saved}: ${describeError(err)}`);
          memory.set(undefined);
        });
      }
    }
    void actions.handle(m);
  });
  const approvals = new InlineApprovals(reviewer, (e) => panel.record(e), () => panel.visible, (message) =>
    panel.conversation.matchCommand(message),
  );
  const showStatus = (): void => {
    panel.setStatus({ running: session.running, sessionId: session.sessionId, approval: readInkSettings().approval });
    void vscode.commands.executeCommand('setContext', 'ink.running', session.running);
  };
  const onState = (): void => {
    showStatus();
    // The panel's session comes back after a window reload.
    memory.set(session.sessionId);
  };
  // By the time a turn ends the server waits for no edit of it: withdraw what is still shown.
  // set once the rewind commands exist (below): offers the review of a turn that changed files
  let afterTurn: (sessionId: string, turnId: string) => void = () => undefined;
  const session = new InkSession(
    getClient,
    transcriptChannel,
    (result) => {
      reviewer.rejectAll(TURN_ENDED_REASON);
      if (result !== undefined && result.stopReason !== 'error') {
        afterTurn(result.sessionId, result.turnId);
      }
    },
    (e) => panel.record(e),
    onState,
  );
  const actions = new PanelActions(panel, session, approvals, getClient, (line) => log.info(line));
  context.subscriptions.push(
    panel,
    approvals,
    actions,
    vscode.window.registerWebviewViewProvider(VIEW_ID, panel, { webviewOptions: { retainContextWhenHidden: false } }),
  );
  showStatus();

  const command = (id: string, run: (...args: never[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  };
  command('ink.ask', async () => {
    const editor = vscode.window.activeTextEditor;
    const prompt = await vscode.window.showInputBox({
      title: 'Ink: Ask',
      prompt: editor === undefined ? 'Ask Ink' : `Ask Ink (about ${vscode.workspace.asRelativePath(editor.document.uri)})`,
      placeHolder: 'e.g. read README.md and tell me how to start the project',
      ignoreFocusOut: true,
    });
    if (prompt !== undefined && prompt.trim() !== '') {
      await session.ask(prompt, { document: editor?.document, selection: editor?.selection });
    }
  });
  command('ink.askSelection', async () => {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined || editor.selection.isEmpty) {
      void vscode.window.showInformationMessage('Ink: select some text first.');
      return;
    }
    const prompt = await vscode.window.showInputBox({
      title: 'Ink: Ask About Selection',
      placeHolder: 'e.g. explain this code',
      ignoreFocusOut: true,
    });
    if (prompt !== undefined && prompt.trim() !== '') {
      await session.ask(prompt, { document: editor.document, selection: editor.selection });
    }
  });
  command('ink.cancel', async () => {
    if (!(await session.cancel())) {
      void vscode.window.showInformationMessage('Ink: nothing is running.');
    }
  });
  command('ink.newSession', () => {
    if (!session.newSession()) {
      void vscode.window.showWarningMessage('Ink: cancel the running question before starting a new session.');
    } else {
      status.reset();
    }
  });
  command('ink.compact', () => session.compact());
  command('ink.runPrompt', async () => {
    const prompt = await actions.completion.pickPrompt();
    if (prompt !== undefined) {
      await panel.reveal();
      await session.ask(prompt, { fromPanel: true });
    }
  });
  command('ink.focusPanel', () => panel.reveal());
  command('ink.sessions', () => actions.pickSession());
  command('ink.attachSelection', async () => {
    await panel.reveal();
    await actions.handle({ t: 'attachSelection' });
  });
  command('ink.showLog', () => log.show(true));
  command('ink.showTranscript', () => transcriptChannel.show(true));
  command('ink.acceptEdit', () => reviewer.accept());
  command('ink.rejectEdit', () => reviewer.reject());
  // the texts before a rewind, served to the multi-file review as its left side
  const beforeTexts = new Map<string, string>();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(REWIND_SCHEME, {
      provideTextDocumentContent: (uri) => beforeTexts.get(uri.toString()) ?? '',
    }),
  );
  const folder = (): vscode.Uri | undefined => vscode.workspace.workspaceFolders?.[0]?.uri;
  const review = async (title: string, files: ReviewFile[]): Promise<unknown> => {
    const root = folder();
    if (root === undefined) {
      return undefined;
    }
    const stamp = Date.now();
    const resources = await Promise.all(
      files.map(async (f) => {
        const file = vscode.Uri.joinPath(root, f.path);
        const left = vscode.Uri.from({ scheme: REWIND_SCHEME, path: `/${stamp}/before/${f.path}` });
        beforeTexts.set(left.toString(), f.before ?? '');
        // a file that is gone shows as empty, not as a document of a missing file (which
        // the server would see open, and a later rewind would take for the user's)
        const gone = await vscode.workspace.fs.stat(file).then(() => false, () => true);
        const right = gone ? vscode.Uri.from({ scheme: REWIND_SCHEME, path: `/${stamp}/after/${f.path}` }) : file;
        return [file, left, right];
      }),
    );
    return vscode.commands.executeCommand('vscode.changes', title, resources);
  };
  const deps: RewindDeps = {
    request: async (m, p) => (await getClient()).sendRequest(m, p),
    pick: (items, title) => vscode.window.showQuickPick(items, { title, matchOnDescription: true, matchOnDetail: true }),
    readFile: async (path) => {
      const root = folder();
      if (root === undefined) {
        return undefined;
      }
      try {
        return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, path)));
      } catch {
        return undefined;
      }
    },
    review,
    inform: (m) => vscode.window.showInformationMessage(m),
  };
  const rewind = async (turn?: number): Promise<void> => {
    try {
      await rewindSession(deps, session.sessionId, turn);
    } catch (err) {
      void vscode.window.showWarningMessage(`Ink: rewind failed: ${describeError(err)}`);
    }
  };
  command('ink.rewind', (turn?: number) => rewind(typeof turn === 'number' ? turn : undefined));
  // at the end of a turn that changed files, the status bar offers its multi-file review
  const reviewItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 90);
  context.subscriptions.push(reviewItem);
  afterTurn = (sessionId, turnId) => {
    reviewItem.hide();
    changedByTurn(deps, sessionId, turnId).then(
      (changed) => {
        if (changed !== undefined) {
          const files = `${changed.count} file${changed.count === 1 ? '' : 's'}`;
          reviewItem.text = `$(diff-multiple) Review ${files}`;
          reviewItem.tooltip = `Ink changed ${files} in turn ${changed.turn}: review them (or Ink: Rewind…)`;
          reviewItem.command = { title: 'Review', command: 'ink.reviewChanges', arguments: [changed.turn] };
          reviewItem.show();
        }
      },
      (err: unknown) => log.info(`no review offered: ${describeError(err)}`),
    );
  };
  command('ink.reviewChanges', async (turn?: number) => {
    try {
      await reviewChanges(deps, session.sessionId, typeof turn === 'number' ? turn : undefined);
    } catch (err) {
      void vscode.window.showWarningMessage(`Ink: review failed: ${describeError(err)}`);
    }
  });
  command('ink.mcpServers', async () => showMcpServers(async (m, p) => (await getClient()).sendRequest(m, p), (items, title) => vscode.window.showQuickPick(items, { title, matchOnDetail: true }), (m) => vscode.window.showInformationMessage(m)));

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration(`${SECTION}.server.path`) || e.affectsConfiguration(`${SECTION}.serverPath`)) {
        const wasRunning = client !== undefined;
        await stopClient();
        if (wasRunning) {
          await getClient();
        }
      } else if (e.affectsConfiguration(SECTION) && client === undefined) {
        showStatus();
      } else if (e.affectsConfiguration(SECTION) && client !== undefined) {
        showStatus();
        const sent = await sendSettings(client);
        log.info(`settings sent to ink-ls: approval ${sent.approval}, model ${sent.model.model ?? '(server default)'}`);
      }
    }),
    { dispose: () => void stopClient() },
  );
}

const REWIND_SCHEME = 'ink-rewind';

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  starting = undefined;
  if (c !== undefined) {
    await c.stop();
  }
}

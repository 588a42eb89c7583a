/**
 * Approvals shown on the Ink panel's cards, kept in step with the native UI: a command
 * approval (`window/showMessageRequest`) is asked on its card while the panel is visible, else
 * in the modal dialog; an edit review is shown both in the native diff and on its card. An
 * answer in one place closes the others (the diff closes, the card's buttons go, the server's
 * `$/cancelRequest` withdraws both).
 */

import * as vscode from 'vscode';
import type { CancellationToken, MessageActionItem, ShowMessageRequestParams } from 'vscode-languageclient/node';

import { answerFor, callIdOfLabel, dialogFor, type ReviewOutcome, rejectedWithReason } from './approval';
import type { Approval, PanelEvent } from './conversation';
import type { EditReviewer } from './review';

/** An answer given on a card. */
export interface CardAnswer {
  id: string;
  choice: 'allow_once' | 'allow_always' | 'allow_project' | 'reject' | 'accept' | 'review';
  reason?: string;
}

const CHOICE_TITLES: Record<string, string> = {
  allow_once: 'Allow once',
  allow_always: 'Always allow',
  allow_project: 'Always in this project',
  reject: 'Reject',
};

/** The bridge between the server's approval requests, the native UI and the panel's cards. */
export class InlineApprovals implements vscode.Disposable {
  private readonly commands = new Map<string, (answer: CardAnswer) => void>();
  private readonly edits = new Map<string, number>();
  private readonly disposables: vscode.Disposable[] = [];
  private counter = 0;

  /**
   * `emit` records an event in the panel's conversation; `panelVisible` says whether a card can
   * be answered now; `matchCommand` finds the call a command approval is about.
   */
  constructor(
    private readonly reviewer: EditReviewer,
    private readonly emit: (event: PanelEvent) => void,
    private readonly panelVisible: () => boolean,
    private readonly matchCommand: (message: string) => string | undefined,
  ) {
    this.disposables.push(
      reviewer.onDidEnqueue(({ id, label }) => {
        const approval: Approval = { id: `edit-${id}`, kind: 'edit', message: label.replace(/^ink: /, '') };
        this.edits.set(approval.id, id);
        this.emit({ t: 'approval', approval, toolCallId: callIdOfLabel(label) });
      }),
      reviewer.onDidSettle((id: number, outcome: ReviewOutcome) => {
        const key = `edit-${id}`;
        if (this.edits.delete(key)) {
          this.emit({ t: 'approvalDone', id: key, answer: outcome.accepted ? 'accepted' : `rejected — ${outcome.reason}` });
        }
      }),
    );
  }

  /** The `window/showMessageRequest` handler: on the card when the panel shows, else modal. */
  readonly askCommand = async (
    params: ShowMessageRequestParams,
    token: CancellationToken,
  ): Promise<MessageActionItem | null> => {
    const actions: MessageActionItem[] = params.actions ?? [];
    const spec = dialogFor(params.type, params.message);
    const id = `cmd-${++this.counter}`;
    const project = actions.some((a) => a.title === CHOICE_TITLES.allow_project);
    const approval: Approval = { id, kind: 'command', message: spec.message, detail: spec.detail, project };
    // ink-ls names the call (`ink.toolCallId`); an older server does not: match its command.
    const named = (params as { ink?: { toolCallId?: unknown } }).ink?.toolCallId;
    const toolCallId = typeof named === 'string' ? named : this.matchCommand(params.message);
    this.emit({ t: 'approval', approval, toolCallId });
    // The card offers Allow once / Always / Always in this project (when offered) / Reject; a
    // question with other actions (a plan's Approve and continue) is asked in the dialog.
    const onCard = new Set(Object.values(CHOICE_TITLES));
    if (!this.panelVisible() || actions.some((a) => !onCard.has(a.title))) {
      const chosen = await modal(spec, actions);
      this.emit({ t: 'approvalDone', id, answer: chosen?.title ?? 'dismissed' });
      return chosen;
    }
    const answer = await new Promise<CardAnswer | undefined>((resolve) => {
      this.commands.set(id, resolve);
      // The server gave up (turn cancelled, timeout): the card's buttons go.
      token.onCancellationRequested(() => resolve(undefined));
    });
    this.commands.delete(id);
    const chosen = answer === undefined ? null : answerFor(actions, CHOICE_TITLES[answer.choice]);
    this.emit({ t: 'approvalDone', id, answer: answer === undefined ? 'withdrawn' : (chosen?.title ?? 'dismissed') });
    return chosen;
  };

  /** An answer from a card. */
  async answer(answer: CardAnswer): Promise<void> {
    const command = this.commands.get(answer.id);
    if (command !== undefined) {
      command(answer);
      return;
    }
    const review = this.edits.get(answer.id);
    if (review === undefined) {
      return;
    }
    if (answer.choice === 'review') {
      await this.reviewer.showReview(review);
    } else if (answer.choice === 'accept' || answer.choice === 'allow_once') {
      this.reviewer.acceptReview(review);
    } else {
      this.reviewer.rejectReview(review, rejectedWithReason(answer.reason ?? ''));
    }
  }

  dispose(): void {
    for (const resolve of this.commands.values()) {
      resolve({ id: '', choice: 'reject' });
    }
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/** The modal dialog (a command approval must not be a toast that slides away). */
async function modal(
  spec: ReturnType<typeof dialogFor>,
  actions: MessageActionItem[],
): Promise<MessageActionItem | null> {
  const show =
    spec.severity === 'error'
      ? vscode.window.showErrorMessage
      : spec.severity === 'warning'
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const chosen = await show(spec.message, { modal: true, detail: spec.detail }, ...actions.map((a) => a.title));
  return answerFor(actions, chosen);
}

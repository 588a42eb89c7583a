/**
 * Edit approval on screen: each `workspace/applyEdit` from ink-ls opens `vscode.diff` between
 * the file as it is and the proposed text (an editable in-memory document, proposedFs.ts), with
 * Accept / Reject in the editor title; a proposal the user edited lands as their version
 * (`ink.edited` in the answer, proposals.ts). Accept applies the edit through the language client's normal path (so
 * undo works) and saves; Reject answers `applied: false` and changes nothing. An edit ink-ls
 * marks pre-approved (approval mode `auto`) skips the diff: applied the same way and saved.
 * When ink-ls withdraws the request (`$/cancelRequest`: the call was cancelled, or its approval
 * timed out), the diff closes unapplied. The queue and the diff building live in approval.ts
 * and edits.ts.
 */

import * as vscode from 'vscode';
import {
  type ApplyWorkspaceEditParams,
  ApplyWorkspaceEditRequest,
  type ApplyWorkspaceEditResult,
  type BaseLanguageClient,
  CancellationToken,
  ResponseError,
} from 'vscode-languageclient';

import {
  CLOSED_REASON,
  REJECTED_REASON,
  rejectWhenWithdrawn,
  ReviewQueue,
  type ReviewOutcome,
  SUPERSEDED_REASON,
  timedOutReason,
} from './approval';
import { applyTextEdits, planEdit, summarizeChange, withoutConfirmation } from './edits';
import { acceptedAnswer, withUserTexts } from './proposals';
import { ProposedFiles } from './proposedFs';

export const PROPOSED_SCHEME = 'ink-proposed';
export const REVIEWING_CONTEXT = 'ink.reviewingEdit';

/** One file of a review: the two sides of its diff. */
interface ReviewFile {
  fileUri: vscode.Uri;
  left: vscode.Uri;
  right: vscode.Uri;
  summary: string;
  /** The file's text the edit applies to ('' for a new file) and the proposed text. */
  current: string;
  proposed: string;
}

interface Review {
  label: string;
  files: ReviewFile[];
}

type Next = ApplyWorkspaceEditRequest.HandlerSignature;

/** Shows ink-ls's edits for approval; register it once and pass `review` as the middleware. */
export class EditReviewer implements vscode.Disposable {
  private readonly queue = new ReviewQueue<Review>();
  private readonly proposals = new ProposedFiles();
  private readonly disposables: vscode.Disposable[] = [];
  private counter = 0;
  private statusMessage: vscode.Disposable | undefined;
  private readonly enqueueEmitter = new vscode.EventEmitter<{ id: number; label: string }>();
  /** A review started waiting (its diff is shown when it reaches the head of the queue). */
  readonly onDidEnqueue = this.enqueueEmitter.event;
  /** A review was answered, wherever that happened (diff, Ink panel, timeout, turn end). */
  readonly onDidSettle = (listener: (id: number, outcome: ReviewOutcome) => void): vscode.Disposable => {
    const sub = this.queue.onDidSettle(listener);
    return new vscode.Disposable(() => sub.dispose());
  };
  /** Each `workspace/applyEdit` request's token, by its params object (see `watchWithdrawals`). */
  private readonly withdrawals = new WeakMap<ApplyWorkspaceEditParams, CancellationToken>();

  /**
   * `timeoutSeconds` is the server's approval timeout. Past it the server stops waiting and
   * withdraws the request (`$/cancelRequest`, seen through `watchWithdrawals`); the review's
   * own timer ends a second earlier, so an answer never lands after the server has given up.
   */
  constructor(
    private readonly log: (line: string) => void,
    private readonly timeoutSeconds: () => number,
  ) {
    this.disposables.push(
      this.enqueueEmitter,
      this.proposals,
      vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, this.proposals, { isCaseSensitive: true }),
      this.queue.onDidChangeCurrent((current) => {
        void vscode.commands.executeCommand('setContext', REVIEWING_CONTEXT, current !== undefined);
        this.statusMessage?.dispose();
        this.statusMessage = undefined;
        if (current !== undefined) {
          this.show(current.item).catch((err: unknown) => this.log(`review: the diff could not be shown: ${String(err)}`));
        }
      }),
      // Closing the diff of the review on screen is an answer too: a rejection.
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        const current = this.queue.current;
        if (current === undefined) {
          return;
        }
        const rights = new Set(current.item.files.map((f) => f.right.toString()));
        const closedOurs = e.closed.some(
          (tab) => tab.input instanceof vscode.TabInputTextDiff && rights.has(tab.input.modified.toString()),
        );
        if (closedOurs) {
          this.queue.reject(CLOSED_REASON, current.id);
        }
      }),
    );
  }

  /**
   * Lets reviews see their request withdrawn. vscode-languageclient gives `handleApplyEdit`
   * middleware no CancellationToken, so its own `workspace/applyEdit` handler is wrapped:
   * registered before `start()`, this one replaces it, notes the request's token under the
   * params object, and runs the client's normal path, whose middleware (`review`) receives that
   * same object.
   */
  watchWithdrawals(client: BaseLanguageClient): void {
    type Handle = (params: ApplyWorkspaceEditParams) => Promise<ApplyWorkspaceEditResult>;
    const normal = (client as unknown as { handleApplyWorkspaceEdit?: Handle }).handleApplyWorkspaceEdit;
    if (typeof normal !== 'function') {
      this.log('review: this vscode-languageclient hides its applyEdit handler; withdrawn reviews stay open');
      return;
    }
    this.disposables.push(
      client.onRequest(ApplyWorkspaceEditRequest.type, (params, token) => {
        this.withdrawals.set(params, token);
        return normal.call(client, params);
      }),
    );
  }

  /** `middleware.workspace.handleApplyEdit`: the user's answer is the result. */
  readonly review = async (params: ApplyWorkspaceEditParams, next: Next): Promise<ApplyWorkspaceEditResult> => {
    const plan = planEdit(params.edit);
    if (plan.unsupported.length > 0) {
      return { applied: false, failureReason: `the VS Code client cannot review: ${plan.unsupported.join('; ')}` };
    }
    const label = params.label ?? 'ink: edit';
    const id = ++this.counter;
    const files: ReviewFile[] = [];
    for (const file of plan.files) {
      const fileUri = vscode.Uri.parse(file.uri);
      const current = await currentText(fileUri);
      const proposed = applyTextEdits(current ?? '', file.edits);
      // the review's number in the path keeps two reviews of one file apart; the file's own
      // name ends it, so the proposed side gets the file's language
      const right = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/review-${id}${fileUri.path}` });
      this.proposals.set(right, proposed);
      let left = fileUri;
      if (current === undefined) {
        // A new file: compare against an empty document.
        left = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/review-${id}-empty${fileUri.path}` });
        this.proposals.set(left, '');
      }
      files.push({ fileUri, left, right, summary: summarizeChange(current ?? '', proposed), current: current ?? '', proposed });
    }
    const review: Review = { label, files };
    this.log(`review: ${label} — ${files.map((f) => f.summary).join('; ')}`);
    const { id: reviewId, outcome } = this.queue.enqueue(review);
    this.enqueueEmitter.fire({ id: reviewId, label });
    const withdrawn = rejectWhenWithdrawn(this.queue, reviewId, this.withdrawals.get(params));
    const seconds = this.timeoutSeconds();
    // A second early, so an answer never lands after the server has given up.
    const timer = setTimeout(
      () => this.queue.reject(timedOutReason(seconds), reviewId),
      Math.max(seconds - 1, 0.5) * 1000,
    );
    const answer = await outcome;
    clearTimeout(timer);
    withdrawn.dispose();
    // the user's versions, read before the diff closes (the proposed side may be unsaved)
    const users = new Map<string, { current: string; text: string }>();
    for (const f of files) {
      const text = this.proposals.text(f.right);
      if (text !== undefined && text !== f.proposed) {
        users.set(f.fileUri.toString(), { current: f.current, text });
      }
    }
    await this.close(review);
    for (const f of files) {
      this.proposals.delete(f.left);
      this.proposals.delete(f.right);
    }
    if (!answer.accepted) {
      this.log(`review: ${label} rejected (${answer.reason})`);
      return { applied: false, failureReason: answer.reason };
    }
    const edited = users.size > 0;
    const applied = edited ? withUserTexts(params, users) : params;
    const result = acceptedAnswer(await applyAndSave(applied, next, files.map((f) => f.fileUri)), [...users.keys()]);
    this.log(
      result.applied
        ? `review: ${label} accepted${edited ? ` as edited by the user (${users.size} of ${files.length} files)` : ''}, applied and saved`
        : `review: ${label} accepted but not applied (${result.failureReason})`,
    );
    return result;
  };

  /**
   * `handleApplyEdit` for an edit ink-ls marked pre-approved (approval mode `auto`): no diff,
   * no question; applied through the normal path (undo works) and saved, like an accepted one.
   */
  readonly applyApproved = async (params: ApplyWorkspaceEditParams, next: Next): Promise<ApplyWorkspaceEditResult> => {
    const plan = planEdit(params.edit);
    if (plan.unsupported.length > 0) {
      return { applied: false, failureReason: `the VS Code client cannot apply: ${plan.unsupported.join('; ')}` };
    }
    const label = params.label ?? 'ink: edit';
    const result = await applyAndSave(params, next, plan.files.map((f) => vscode.Uri.parse(f.uri)));
    this.log(
      result.applied
        ? `auto: ${label} applied and saved (pre-approved)`
        : `auto: ${label} not applied (${result.failureReason})`,
    );
    return result;
  };

  /** The Accept Edit command; false when no edit is waiting. */
  accept(): boolean {
    return this.queue.accept();
  }

  /** The Reject Edit command; false when no edit is waiting. */
  reject(): boolean {
    return this.queue.reject(REJECTED_REASON);
  }

  /** Accepts review `id` (from the Ink panel); false when it no longer waits. */
  acceptReview(id: number): boolean {
    return this.queue.accept(id);
  }

  /** Rejects review `id` (from the Ink panel) with `reason`; false when it no longer waits. */
  rejectReview(id: number, reason: string): boolean {
    return this.queue.reject(reason, id);
  }

  /** Shows the diff of review `id` again (the Ink panel's "Review diff"). */
  async showReview(id: number): Promise<boolean> {
    const review = this.queue.item(id);
    if (review === undefined) {
      return false;
    }
    await this.show(review);
    return true;
  }

  /** Withdraws every review still waiting (the turn ended, or the client stopped). */
  rejectAll(reason: string = SUPERSEDED_REASON): void {
    this.queue.rejectAll(reason);
  }

  dispose(): void {
    this.rejectAll();
    this.statusMessage?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  private async show(review: Review): Promise<void> {
    for (const f of review.files) {
      const name = vscode.workspace.asRelativePath(f.fileUri);
      await vscode.commands.executeCommand(
        'vscode.diff',
        f.left,
        f.right,
        `${name} ↔ proposed by Ink (${f.summary})`,
        { preview: false } satisfies vscode.TextDocumentShowOptions,
      );
    }
    this.statusMessage = vscode.window.setStatusBarMessage(`${review.label}: Accept ✓ or Reject ✗ in the editor title`);
  }

  private async close(review: Review): Promise<void> {
    const rights = new Set(review.files.map((f) => f.right.toString()));
    // an edited proposal is kept in memory first, so closing its tab asks nothing
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.isDirty && rights.has(doc.uri.toString())) {
        await doc.save();
      }
    }
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && rights.has(tab.input.modified.toString()));
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs, true);
    }
  }
}

/** Applies `params` through the client's normal path (undo works), then saves the files. */
async function applyAndSave(
  params: ApplyWorkspaceEditParams,
  next: Next,
  fileUris: readonly vscode.Uri[],
): Promise<ApplyWorkspaceEditResult> {
  const result = await next(withoutConfirmation(params), CancellationToken.None);
  if (result instanceof ResponseError) {
    return { applied: false, failureReason: `the editor could not apply the edit: ${result.message}` };
  }
  if (!result.applied) {
    return { applied: false, failureReason: result.failureReason ?? 'the editor could not apply the edit (the file changed?)' };
  }
  for (const uri of fileUris) {
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.isDirty && !(await doc.save())) {
      return { applied: false, failureReason: `the edit was applied but ${uri.fsPath} could not be saved` };
    }
  }
  return { applied: true };
}

/** The text of `uri` as the user sees it: the open buffer, else the file; undefined if none. */
async function currentText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open !== undefined) {
    return open.getText();
  }
  try {
    const bytes = await vscode.workspace.fs.readFile(uri);
    return new TextDecoder().decode(bytes);
  } catch {
    return undefined;
  }
}

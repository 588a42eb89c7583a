/**
 * Approval state without UI: the queue of edit reviews (one shown at a time, answered by the
 * Accept / Reject commands) and the mapping of the server's command-approval request to a
 * dialog. Pure: no `vscode` import; review.ts and client.ts put these on screen.
 */

/** The user's answer to one edit review. */
export type ReviewOutcome = { accepted: true } | { accepted: false; reason: string };

export const REJECTED_REASON = 'the user rejected this edit in the diff view';
export const SUPERSEDED_REASON = 'the edit review was closed before the user answered';
export const CLOSED_REASON = 'the user closed the edit review without accepting it';
export const TURN_ENDED_REASON = 'the turn ended before the user answered the edit review';
export const WITHDRAWN_REASON = 'ink-ls withdrew the edit review (the call was cancelled or its approval timed out)';

/** The reason sent when the user rejects an edit from the Ink panel, with their words if any. */
export function rejectedWithReason(reason: string): string {
  const said = reason.trim();
  return said === '' ? 'the user rejected this edit' : `the user rejected this edit: ${said}`;
}

/** The tool call id at the end of an edit's label, `ink: edit a.txt (call_1)` → `call_1`. */
export function callIdOfLabel(label: string): string | undefined {
  const m = /\(([^()\s]+)\)$/.exec(label);
  return m?.[1];
}

/** The reason given when nobody answered a review in time (the server has given up by then). */
export function timedOutReason(seconds: number): string {
  return `no answer to the edit review within ${seconds}s`;
}

interface PendingReview<T> {
  id: number;
  item: T;
  resolve: (outcome: ReviewOutcome) => void;
}

/**
 * A first-in first-out queue of reviews. The head is the review on screen; answering it
 * resolves its promise and makes the next one current. Listeners hear every change of head.
 */
export class ReviewQueue<T> {
  private readonly pending: PendingReview<T>[] = [];
  private readonly listeners = new Set<(current: { id: number; item: T } | undefined) => void>();
  private readonly settleListeners = new Set<(id: number, outcome: ReviewOutcome) => void>();
  private nextId = 1;

  /** Adds a review; the promise settles when the user (or `rejectAll`) answers it. */
  enqueue(item: T): { id: number; outcome: Promise<ReviewOutcome> } {
    const id = this.nextId++;
    let resolve!: (outcome: ReviewOutcome) => void;
    const outcome = new Promise<ReviewOutcome>((r) => {
      resolve = r;
    });
    this.pending.push({ id, item, resolve });
    if (this.pending.length === 1) {
      this.emit();
    }
    return { id, outcome };
  }

  /** The review on screen, if any. */
  get current(): { id: number; item: T } | undefined {
    const head = this.pending[0];
    return head === undefined ? undefined : { id: head.id, item: head.item };
  }

  get size(): number {
    return this.pending.length;
  }

  /** Accepts the current review (or the one with `id`); false when there is none. */
  accept(id?: number): boolean {
    return this.settle(id, { accepted: true });
  }

  /** Rejects the current review (or the one with `id`) with `reason`; false when there is none. */
  reject(reason: string = REJECTED_REASON, id?: number): boolean {
    return this.settle(id, { accepted: false, reason });
  }

  /** Rejects every pending review, e.g. when the server stops. */
  rejectAll(reason: string): void {
    while (this.pending.length > 0) {
      this.settle(undefined, { accepted: false, reason });
    }
  }

  /** Calls `listener` whenever the current review changes (undefined: none left). */
  onDidChangeCurrent(listener: (current: { id: number; item: T } | undefined) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Calls `listener` whenever a review is answered (from anywhere: diff, card, timeout). */
  onDidSettle(listener: (id: number, outcome: ReviewOutcome) => void): { dispose(): void } {
    this.settleListeners.add(listener);
    return { dispose: () => this.settleListeners.delete(listener) };
  }

  /** Whether review `id` is still waiting for an answer. */
  has(id: number): boolean {
    return this.pending.some((p) => p.id === id);
  }

  /** The item of review `id` while it waits. */
  item(id: number): T | undefined {
    return this.pending.find((p) => p.id === id)?.item;
  }

  private settle(id: number | undefined, outcome: ReviewOutcome): boolean {
    const index = id === undefined ? 0 : this.pending.findIndex((p) => p.id === id);
    const review = this.pending[index];
    if (review === undefined) {
      return false;
    }
    this.pending.splice(index, 1);
    review.resolve(outcome);
    for (const listener of [...this.settleListeners]) {
      listener(review.id, outcome);
    }
    if (index === 0) {
      this.emit();
    }
    return true;
  }

  private emit(): void {
    const current = this.current;
    for (const listener of [...this.listeners]) {
      listener(current);
    }
  }
}

/** The part of a JSON-RPC request's CancellationToken a review needs (no import: stays pure). */
export interface Withdrawal {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): unknown };
}

/**
 * Rejects review `id` with `WITHDRAWN_REASON` once the server withdraws its request
 * (`$/cancelRequest` cancels `token`; at once when it already has). Dispose when answered.
 */
export function rejectWhenWithdrawn<T>(queue: ReviewQueue<T>, id: number, token: Withdrawal | undefined): { dispose(): void } {
  if (token === undefined) {
    return { dispose: () => undefined };
  }
  if (token.isCancellationRequested) {
    queue.reject(WITHDRAWN_REASON, id);
    return { dispose: () => undefined };
  }
  const subscription = token.onCancellationRequested(() => queue.reject(WITHDRAWN_REASON, id));
  return { dispose: () => void subscription.dispose() };
}

/** An action of `window/showMessageRequest` (ink-ls adds an `optionId`). */
export interface ApprovalAction {
  title: string;
}

/** How a `window/showMessageRequest` is shown as a modal dialog. */
export interface DialogSpec {
  severity: 'error' | 'warning' | 'info';
  /** The dialog's headline (the message's first line). */
  message: string;
  /** The rest of the message (e.g. the command), shown under the headline; undefined if none. */
  detail: string | undefined;
}

/**
 * Splits a server message such as `Ink wants to run a command:\nnpm test` into the dialog's
 * headline and detail, and maps the LSP message type (1 error, 2 warning, else info).
 */
export function dialogFor(type: number, message: string): DialogSpec {
  const newline = message.indexOf('\n');
  const headline = newline < 0 ? message : message.slice(0, newline);
  const rest = newline < 0 ? '' : message.slice(newline + 1).trim();
  const severity = type === 1 ? 'error' : type === 2 ? 'warning' : 'info';
  return { severity, message: headline, detail: rest === '' ? undefined : rest };
}

/**
 * The answer to send back: the action object the server offered (so its `optionId` goes back
 * unchanged), or null when the dialog was dismissed (the server reads that as a rejection).
 */
export function answerFor<A extends ApprovalAction>(actions: readonly A[], chosenTitle: string | undefined): A | null {
  if (chosenTitle === undefined) {
    return null;
  }
  return actions.find((a) => a.title === chosenTitle) ?? null;
}

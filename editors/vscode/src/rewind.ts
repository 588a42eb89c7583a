/**
 * "Ink: Rewind…": a quick pick of the session's turns (`ink/session/checkpoints`) with their
 * file counts; the picked one is rewound (`ink/session/rewind`: files and conversation as
 * just before it) and the files the rewind changed open as one multi-file review
 * (`vscode.changes`: before the rewind ↔ now). Pure apart from the callbacks it is given: no
 * `vscode` import, so node:test covers it. Shapes mirror protocol.md.
 */

import { SESSION_CHANGES, SESSION_CHECKPOINTS, SESSION_REWIND } from './protocol';

export interface CheckpointFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  added?: number;
  removed?: number;
}

export interface Checkpoint {
  turn: number;
  kind: 'turn' | 'rewind';
  prompt: string;
  createdAt: string;
  rewound: boolean;
  noChanges: boolean;
  files: CheckpointFile[];
  to?: number;
  restore?: 'files' | 'conversation' | 'both';
}

export interface RewindResult {
  checkpoint: Checkpoint;
  restored: string[];
  kept: string[];
}

/** One row of the quick pick. */
export interface RewindItem {
  label: string;
  description: string;
  detail: string;
  turn: number;
}

/** One file of the review: its text before the rewind (undefined: it did not exist). */
export interface ReviewFile {
  path: string;
  before: string | undefined;
}

function counts(files: CheckpointFile[]): string {
  return files
    .map((f) => (f.added === undefined ? `${f.path} (binary)` : `${f.path} +${f.added} −${f.removed ?? 0}`))
    .join(', ');
}

/** The quick-pick rows, newest first: "Rewind to before N", its prompt, its files. */
export function rewindItems(entries: Checkpoint[]): RewindItem[] {
  return [...entries].reverse().map((e) => {
    const first = e.prompt.split('\n').find((l) => l.trim() !== '') ?? '';
    const n = e.files.length;
    const files = e.noChanges ? 'no changes' : `${n} file${n === 1 ? '' : 's'}`;
    return {
      label: `${e.kind === 'rewind' ? '$(discard)' : '$(comment)'} ${e.turn}. ${first}`,
      description: `${files}${e.rewound ? ' · rewound' : ''} · ${e.createdAt.replace('T', ' ').replace(/Z$/, '')}`,
      detail: e.noChanges ? 'rewinding here restores the conversation only' : counts(e.files),
      turn: e.turn,
    };
  });
}

/** The files a rewind to before `turn` may touch: those of every entry from `turn` on. */
export function touchedBy(entries: Checkpoint[], turn: number): string[] {
  const paths = new Set<string>();
  for (const e of entries) {
    if (e.turn >= turn) {
      e.files.forEach((f) => paths.add(f.path));
    }
  }
  return [...paths].sort();
}

export interface RewindDeps {
  request: (method: string, params: object) => Promise<unknown>;
  pick: (items: RewindItem[], title: string) => PromiseLike<RewindItem | undefined>;
  /** The file's text now (undefined when it does not exist). */
  readFile: (path: string) => Promise<string | undefined>;
  /** Opens the multi-file review of the rewind's files. */
  review: (title: string, files: ReviewFile[]) => PromiseLike<unknown>;
  inform: (message: string) => unknown;
}

/** Runs the command for the session; the rewind's result, or undefined when nothing ran. */
export async function rewindSession(deps: RewindDeps, sessionId: string | undefined, turn?: number): Promise<RewindResult | undefined> {
  if (sessionId === undefined) {
    deps.inform('Ink: ask something first: there is no session to rewind.');
    return undefined;
  }
  const listed = (await deps.request(SESSION_CHECKPOINTS, { sessionId })) as { checkpoints: Checkpoint[] };
  if (listed.checkpoints.length === 0) {
    deps.inform('Ink: this session has no turns yet.');
    return undefined;
  }
  let target = turn;
  if (target === undefined) {
    const chosen = await deps.pick(rewindItems(listed.checkpoints), 'Ink: Rewind to before…');
    if (chosen === undefined) {
      return undefined;
    }
    target = chosen.turn;
  }
  const before: ReviewFile[] = [];
  for (const path of touchedBy(listed.checkpoints, target)) {
    before.push({ path, before: await deps.readFile(path) });
  }
  const result = (await deps.request(SESSION_REWIND, { sessionId, turn: target })) as RewindResult;
  const changed = new Set(result.checkpoint.files.map((f) => f.path));
  const files = before.filter((f) => changed.has(f.path));
  const kept = result.kept.length > 0 ? `; kept your version of ${result.kept.join(', ')}` : '';
  deps.inform(`Ink: rewound to before ${target} (rewind to ${result.checkpoint.turn} to undo it)${kept}.`);
  if (files.length > 0) {
    await deps.review(`Ink: rewind to before ${target}`, files);
  }
  return result;
}

/** A file of `ink/session/changes`. */
export interface ChangedFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  before?: string;
  after?: string;
  binary?: boolean;
}

/** "Ink: Review Changes…": the whole session's changes, or one turn's, as one multi-file
 * review (before ↔ the file on disk, where hunks can be reverted and saved). */
export async function reviewChanges(deps: RewindDeps, sessionId: string | undefined, turn?: number): Promise<ChangedFile[] | undefined> {
  if (sessionId === undefined) {
    deps.inform('Ink: ask something first: there is no session to review.');
    return undefined;
  }
  let chosen: RewindItem | undefined = turn === undefined ? undefined : { label: '', description: '', detail: '', turn };
  if (chosen === undefined) {
    const listed = (await deps.request(SESSION_CHECKPOINTS, { sessionId })) as { checkpoints: Checkpoint[] };
    const turns = rewindItems(listed.checkpoints.filter((e) => !e.noChanges && !e.rewound));
    const whole: RewindItem = { label: '$(files) Whole session', description: 'every change in effect', detail: '', turn: 0 };
    chosen = await deps.pick([whole, ...turns], 'Ink: Review changes of…');
  }
  if (chosen === undefined) {
    return undefined;
  }
  const params = chosen.turn === 0 ? { sessionId } : { sessionId, turn: chosen.turn };
  const { files } = (await deps.request(SESSION_CHANGES, params)) as { files: ChangedFile[] };
  const texts = files.filter((f) => f.binary !== true);
  if (texts.length === 0) {
    deps.inform('Ink: no text files changed there.');
    return files;
  }
  const title = chosen.turn === 0 ? 'Ink: session changes' : `Ink: changes of turn ${chosen.turn}`;
  await deps.review(title, texts.map((f) => ({ path: f.path, before: f.before })));
  return files;
}

/** The files a finished turn changed (`turnId` `t<N>`): its number and file count, or
 * undefined for a turn without changes (nothing to offer). */
export async function changedByTurn(
  deps: Pick<RewindDeps, 'request'>,
  sessionId: string,
  turnId: string,
): Promise<{ turn: number; count: number } | undefined> {
  const turn = /^t(\d+)$/.exec(turnId);
  if (turn === null) {
    return undefined;
  }
  const n = Number(turn[1]);
  const listed = (await deps.request(SESSION_CHECKPOINTS, { sessionId })) as { checkpoints: Checkpoint[] };
  const entry = listed.checkpoints.find((e) => e.turn === n);
  if (entry === undefined || entry.noChanges || entry.files.length === 0) {
    return undefined;
  }
  return { turn: n, count: entry.files.length };
}

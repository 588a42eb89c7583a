/**
 * What the Ink panel's prompt box offers while typing: `/` at the start lists the slash commands
 * (the project's prompt files and the built-ins, as `ink/commands` reports them), `@` the
 * workspace's files and folders plus `@selection` and `@problems`. Pure (no `vscode` import):
 * shared with the webview and tested under node:test.
 */

/** One slash command as the server lists it. */
export interface CommandInfo {
  name: string;
  description: string;
  argumentHint: string;
}

/** One row of the completion list; picking it replaces the typed `@…` or `/…` with `insert`. */
export interface Suggestion {
  kind: 'file' | 'folder' | 'selection' | 'problems' | 'command';
  label: string;
  insert: string;
  /** The file's absolute path (a picked file is attached as a chip too). */
  path: string;
  detail?: string;
}

/** A workspace file: relative to the first folder (as shown) and absolute. */
export interface FileEntry {
  rel: string;
  abs: string;
}

export const SUGGESTION_LIMIT = 12;

const SPECIALS: Suggestion[] = [
  { kind: 'selection', label: '@selection', insert: '@selection', path: '', detail: "the editor's selection" },
  { kind: 'problems', label: '@problems', insert: '@problems', path: '', detail: "the Problems panel's diagnostics" },
];

/** The typed token before the caret that opens the list: `/name` alone at the start of the
 * prompt, or an `@word` after a space (never `user@host`); undefined when none. */
export function completionToken(before: string): { at: number; token: string } | undefined {
  const slash = /^\/([\w:.-]*)$/.exec(before);
  if (slash !== null) {
    return { at: 0, token: before };
  }
  const m = /(^|\s)@([\w./-]*)$/.exec(before);
  return m === null ? undefined : { at: before.length - m[2].length - 1, token: `@${m[2]}` };
}

/** Commands whose name starts with `query` first, then those that contain it; by name. */
export function commandSuggestions(query: string, commands: readonly CommandInfo[]): Suggestion[] {
  const q = query.toLowerCase();
  const rank = (c: CommandInfo): number => (c.name.toLowerCase().startsWith(q) ? 0 : c.name.toLowerCase().includes(q) ? 1 : 2);
  return commands
    .filter((c) => rank(c) < 2)
    .sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name))
    .slice(0, SUGGESTION_LIMIT)
    .map((c) => ({
      kind: 'command',
      label: `/${c.name}`,
      insert: `/${c.name}`,
      path: '',
      detail: [c.argumentHint, c.description].filter((s) => s !== '').join(' — '),
    }));
}

/** The folders above `files` (each once), as `dir/`. */
function foldersOf(files: readonly FileEntry[]): FileEntry[] {
  const seen = new Map<string, FileEntry>();
  for (const f of files) {
    const parts = f.rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const rel = `${parts.slice(0, i).join('/')}/`;
      if (!seen.has(rel)) {
        seen.set(rel, { rel, abs: f.abs.slice(0, f.abs.length - f.rel.length) + rel });
      }
    }
  }
  return [...seen.values()];
}

/** `@` suggestions for `query` (without the `@`): the specials it starts, then folders and
 * files containing it, shortest first. */
export function mentionSuggestions(query: string, files: readonly FileEntry[]): Suggestion[] {
  const q = query.toLowerCase();
  const specials = q === '' ? SPECIALS : SPECIALS.filter((s) => s.label.slice(1).startsWith(q));
  const matches = (f: FileEntry): boolean => f.rel.toLowerCase().includes(q);
  const paths: Suggestion[] = [
    ...foldersOf(files).filter(matches).map((f): Suggestion => ({ kind: 'folder', label: f.rel, insert: `@${f.rel}`, path: f.abs })),
    ...files.filter(matches).map((f): Suggestion => ({ kind: 'file', label: f.rel, insert: `@${f.rel}`, path: f.abs })),
  ].sort((a, b) => a.label.length - b.label.length || a.label.localeCompare(b.label));
  return [...specials, ...paths].slice(0, SUGGESTION_LIMIT);
}

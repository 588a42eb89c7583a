/**
 * Which session the Ink panel shows, remembered across window reloads. Written synchronously to
 * a file in the extension's workspace storage: `workspaceState` is flushed lazily, and a reload
 * right after a turn could lose it. Falls back to `workspaceState` without a storage folder.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

import type * as vscode from 'vscode';

const KEY = 'ink.sessionId';

export class SessionMemory {
  private readonly file: string | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    const dir = context.storageUri;
    this.file = dir !== undefined && dir.scheme === 'file' ? path.join(dir.fsPath, 'panel-session') : undefined;
  }

  /** The session shown before the reload, if any. */
  get(): string | undefined {
    if (this.file === undefined) {
      return this.context.workspaceState.get<string>(KEY);
    }
    try {
      const id = fs.readFileSync(this.file, 'utf8').trim();
      return id === '' ? undefined : id;
    } catch {
      return undefined;
    }
  }

  /** Remembers `sessionId` (undefined: a new, empty session). */
  set(sessionId: string | undefined): void {
    if (this.file === undefined) {
      void this.context.workspaceState.update(KEY, sessionId);
      return;
    }
    if (this.get() === sessionId) {
      return;
    }
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fs.writeFileSync(this.file, sessionId ?? '');
    } catch {
      void this.context.workspaceState.update(KEY, sessionId);
    }
  }
}

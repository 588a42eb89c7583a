/**
 * The proposed side of an edit review as an editable in-memory file system (`ink-proposed:`):
 * the user may change the proposal before accepting it (protocol.md, "Edited proposals").
 * Nothing here touches the disk; a save writes only this memory.
 */

import * as vscode from 'vscode';

interface Entry {
  data: Uint8Array;
  mtime: number;
}

/** Files by uri; directories are implied (every parent of a file exists). */
export class ProposedFiles implements vscode.FileSystemProvider {
  private readonly files = new Map<string, Entry>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  /** Sets the text of `uri` (a new review's side). */
  set(uri: vscode.Uri, text: string): void {
    this.files.set(uri.toString(), { data: new TextEncoder().encode(text), mtime: Date.now() });
  }

  /** Forgets `uri` (its review is answered). */
  delete(uri: vscode.Uri): void {
    this.files.delete(uri.toString());
  }

  /** The text of `uri` as the user left it: the open document (saved or not), else memory. */
  text(uri: vscode.Uri): string | undefined {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open !== undefined) {
      return open.getText();
    }
    const entry = this.files.get(uri.toString());
    return entry === undefined ? undefined : new TextDecoder().decode(entry.data);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const entry = this.files.get(uri.toString());
    if (entry === undefined) {
      const prefix = uri.toString().replace(/\/?$/, '/');
      if ([...this.files.keys()].some((k) => k.startsWith(prefix))) {
        return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
      }
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return { type: vscode.FileType.File, ctime: entry.mtime, mtime: entry.mtime, size: entry.data.byteLength };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {}

  readFile(uri: vscode.Uri): Uint8Array {
    const entry = this.files.get(uri.toString());
    if (entry === undefined) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return entry.data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    this.files.set(uri.toString(), { data: content, mtime: Date.now() });
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('a proposal cannot be renamed');
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/**
 * The slash commands and `@` mentions in VS Code: what the panel's prompt box offers (files and
 * folders from `workspace.findFiles`, `@selection`, `@problems`, the server's `ink/commands`)
 * and the palette's **Ink: Run Prompt…** (pick a command, type its arguments, send `/name args`).
 */

import * as vscode from 'vscode';
import { type LanguageClient, ResponseError } from 'vscode-languageclient/node';

import { type CommandInfo, commandSuggestions, type FileEntry, mentionSuggestions, type Suggestion } from './completionItems';
import { COMMANDS_LIST, type CommandsResult } from './protocol';

const EXCLUDE = '**/{node_modules,.git,.venv}/**';
const METHOD_NOT_FOUND = -32601;

export class PanelCompletion {
  private warned = false;

  constructor(
    private readonly getClient: () => Promise<LanguageClient>,
    private readonly log: (line: string) => void,
  ) {}

  /** The server's slash commands; none (said once in the log) from a server without `ink/commands`. */
  async commands(): Promise<CommandInfo[]> {
    try {
      const result = await (await this.getClient()).sendRequest<CommandsResult>(COMMANDS_LIST, {});
      return result.commands.map((c) => ({ name: c.name, description: c.description, argumentHint: c.argumentHint }));
    } catch (err) {
      if (err instanceof ResponseError && err.code === METHOD_NOT_FOUND) {
        if (!this.warned) {
          this.warned = true;
          this.log('this ink-ls does not list slash commands (no ink/commands): none offered');
        }
        return [];
      }
      throw err;
    }
  }

  /** The rows for a typed token: `/na…` (commands) or `@na…` (mentions). */
  async suggest(token: string): Promise<Suggestion[]> {
    if (token.startsWith('/')) {
      return commandSuggestions(token.slice(1), await this.commands());
    }
    return mentionSuggestions(token.replace(/^@/, ''), await this.files(token.replace(/^@/, '')));
  }

  /** Workspace files whose path contains `query` (in their name or a folder's name). */
  private async files(query: string): Promise<FileEntry[]> {
    const q = query.replace(/[[\]{}*?]/g, '');
    const globs = q === '' ? ['**/*'] : [`**/*${q}*`, `**/*${q}*/**`];
    const found = await Promise.all(globs.map((g) => vscode.workspace.findFiles(g, EXCLUDE, 200)));
    const seen = new Map<string, FileEntry>();
    for (const uri of found.flat()) {
      seen.set(uri.fsPath, { rel: vscode.workspace.asRelativePath(uri, false), abs: uri.fsPath });
    }
    return [...seen.values()];
  }

  /** Ink: Run Prompt…: a quick pick of the commands, then their arguments; the text to send. */
  async pickPrompt(): Promise<string | undefined> {
    const commands = await this.commands();
    if (commands.length === 0) {
      void vscode.window.showInformationMessage(
        'Ink: no prompt commands. Add one as .ink/commands/NAME.md (or .claude/commands, .github/prompts, .gemini/commands).',
      );
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      commands.map((c) => ({ label: `/${c.name}`, description: c.argumentHint, detail: c.description, name: c.name, hint: c.argumentHint })),
      { title: 'Ink: Run Prompt', placeHolder: 'A prompt file or built-in command', matchOnDescription: true, matchOnDetail: true },
    );
    if (picked === undefined) {
      return undefined;
    }
    const args = await vscode.window.showInputBox({
      title: `Ink: /${picked.name}`,
      prompt: picked.hint === '' ? 'Arguments (optional)' : `Arguments: ${picked.hint}`,
      ignoreFocusOut: true,
    });
    if (args === undefined) {
      return undefined;
    }
    return args.trim() === '' ? `/${picked.name}` : `/${picked.name} ${args.trim()}`;
  }
}

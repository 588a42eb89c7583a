// The editor's intelligence in the real workbench: the scripted model's `lsp` calls (definition,
// references of a TypeScript function) answered by VS Code's built-in TypeScript features over
// `ink/languageFeatures` (their being active shown first by a hover); `/` in the panel's prompt box offering a prompt file's command, `@`
// offering folders and `@selection`; Ink: Run Prompt… sending `/name args`. Registered by
// workbench.mjs after the panel cases (same code-server and ink-ls). The TypeScript project and
// the prompt file are written here, before the cases run (no TypeScript server has started yet).

import fs from 'node:fs';
import path from 'node:path';

import { answerInputBox, runCommand } from './harness.mjs';
import { openPanel } from './panel_cases.mjs';

/** The files the scripted model's `lsp` calls ask about (tests/editors/test_vscode.py knows them). */
export const TS_FILES = {
  'tsdemo/tsconfig.json': '{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "ES2022" }, "include": ["*.ts"] }\n',
  'tsdemo/math.ts': '// Arithmetic helpers.\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'tsdemo/main.ts': "import { add } from './math';\n\nexport const total = add(1, 2);\nconsole.log(add(total, 3));\n",
  'tsdemo/report.ts': "import { add } from './math';\n\nexport function report(): string {\n  return `sum: ${add(4, 5)}`;\n}\n",
  '.claude/commands/tsreview.md':
    '---\ndescription: Review a TypeScript file\nargument-hint: <file>\n---\n[prompt-file] Review $ARGUMENTS for bugs.\n',
};

export function intelCases({ page, test, workspace }) {
  for (const [name, text] of Object.entries(TS_FILES)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }

  /** Sends `prompt` from the panel, waits for its turn to end, returns the answer holding `needle`. */
  async function answerTo(view, prompt, needle) {
    const box = view.locator('textarea.prompt');
    const before = await view.locator('.entry.outcome').count();
    await box.fill(prompt);
    await box.press('Enter');
    await view.locator('.entry.user', { hasText: prompt }).waitFor({ timeout: 10000 });
    await view.locator('.entry.outcome').nth(before).waitFor({ timeout: 90000 });
    const answer = view.locator('.answer', { hasText: needle }).last();
    await answer.waitFor({ timeout: 10000 });
    return answer.innerText();
  }

  test("intel: VS Code's TypeScript features are active (a hover on add shows its signature)", async () => {
    // As a user works: main.ts open, the pointer on a call. The TypeScript server starts now
    // (on a loaded machine it can take longer than ink-ls waits for one answer: 30 s).
    const p = page();
    const t0 = Date.now();
    await p.locator('.part.editor').click({ position: { x: 200, y: 300 } });
    await p.keyboard.press('Control+P');
    const input = p.locator('.quick-input-widget .quick-input-box input');
    await input.fill('tsdemo/main.ts');
    await p.locator('.quick-input-list .monaco-list-row.focused', { hasText: 'main.ts' }).first().waitFor();
    await input.press('Enter');
    await p.locator('.tabs-container .tab.active', { hasText: 'main.ts' }).waitFor();
    const editor = p.locator('.editor-instance .monaco-editor:not(.monaco-diff-editor *)').first();
    const call = editor.locator('.view-line', { hasText: 'export const total = add(1, 2);' }).locator('span span', { hasText: /^add$/ });
    const hover = p.locator('.monaco-hover', { hasText: 'add(a: number, b: number): number' });
    const deadline = Date.now() + 120000;
    for (;;) {
      await p.mouse.move(5, 5);
      await call.hover();
      try {
        await hover.waitFor({ timeout: 3000 });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
      }
    }
    console.log(`TypeScript features ready (hover answered) ${Date.now() - t0} ms after opening main.ts`);
    await p.mouse.move(5, 5);
  });

  test('intel: the lsp tool answers references and definition of a TS function from VS Code', async () => {
    const p = page();
    await runCommand(p, 'Ink: New Session');
    const view = await openPanel(p);
    await view.locator('.empty').waitFor({ state: 'visible' });
    // References first: a definition asked while the project loads is answered by TypeScript's
    // syntax-only server, which stops at the import.
    const references = await answerTo(view, '[lsp-references] who uses add?', 'Tool said:');
    for (const line of ["tsdemo/main.ts:1: import { add } from './math';", 'tsdemo/main.ts:3: export const total = add(1, 2);']) {
      if (!references.includes(line)) {
        throw new Error(`references answer lacks ${line}: ${references}`);
      }
    }
    const definition = await answerTo(view, '[lsp-definition] where is add defined?', 'Tool said:');
    if (!definition.includes('tsdemo/math.ts:2: export function add(a: number, b: number): number {')) {
      throw new Error(`definition answer: ${definition}`);
    }
    // The tool's card shows the call as the model made it.
    await view.locator('.card', { hasText: 'lsp references' }).last().waitFor();
  });

  test('intel: the lsp tool and grep on the same question, timed (printed by the wrapper)', async () => {
    const view = await openPanel(page());
    await answerTo(view, '[lsp-timing] time lsp against grep', 'Tool said:');
  });

  test('intel: hover, document symbols and incoming calls through VS Code (checked by the wrapper)', async () => {
    const view = await openPanel(page());
    await answerTo(view, '[lsp-more] hover, symbols and callers of add', 'Tool said:');
  });

  test('intel: @ offers folders, @selection and @problems in the panel', async () => {
    const view = await openPanel(page());
    const box = view.locator('textarea.prompt');
    await box.fill('');
    await box.pressSequentially('look at @tsd');
    await view.locator('ul.mentions li[aria-selected="true"]', { hasText: 'tsdemo/' }).waitFor({ timeout: 10000 });
    await view.locator('ul.mentions li', { hasText: 'tsdemo/math.ts' }).waitFor();
    await box.press('Enter');
    if ((await box.inputValue()) !== 'look at @tsdemo/ ') {
      throw new Error(`a folder pick left ${JSON.stringify(await box.inputValue())}`);
    }
    await box.pressSequentially('and @pro');
    await view.locator('ul.mentions li[aria-selected="true"]', { hasText: '@problems' }).waitFor({ timeout: 10000 });
    await box.press('Enter');
    await box.pressSequentially('@sel');
    await view.locator('ul.mentions li[aria-selected="true"]', { hasText: '@selection' }).waitFor({ timeout: 10000 });
    await box.press('Escape');
    if ((await box.inputValue()) !== 'look at @tsdemo/ and @problems @sel') {
      throw new Error(`the box holds ${JSON.stringify(await box.inputValue())}`);
    }
    await box.fill('');
  });

  test("intel: / in the panel offers a prompt file's command, sent with its arguments", async () => {
    const view = await openPanel(page());
    const box = view.locator('textarea.prompt');
    await box.fill('');
    await box.pressSequentially('/tsre');
    const option = view.locator('ul.mentions li[aria-selected="true"]', { hasText: '/tsreview' });
    await option.waitFor({ timeout: 10000 });
    await option.locator('.mention-detail', { hasText: '<file> — Review a TypeScript file' }).waitFor();
    await box.press('Enter');
    if ((await box.inputValue()) !== '/tsreview ') {
      throw new Error(`picking the command left ${JSON.stringify(await box.inputValue())}`);
    }
    await box.pressSequentially('tsdemo/main.ts');
    const before = await view.locator('.entry.outcome').count();
    await box.press('Enter');
    await view.locator('.entry.user', { hasText: '/tsreview tsdemo/main.ts' }).waitFor({ timeout: 10000 });
    await view.locator('.entry.outcome').nth(before).waitFor({ timeout: 60000 });
    await view.locator('.answer', { hasText: 'The answer is 42' }).last().waitFor();
  });

  test('intel: Ink: Run Prompt… picks the command, asks for its arguments and sends it', async () => {
    const p = page();
    const view = await openPanel(p);
    const before = await view.locator('.entry.outcome').count();
    await runCommand(p, 'Ink: Run Prompt…');
    const row = p.locator('.quick-input-list .monaco-list-row', { hasText: '/tsreview' });
    await row.waitFor({ timeout: 20000 });
    await row.locator('.monaco-icon-label', { hasText: '<file>' }).waitFor();
    await p.locator('.quick-input-widget .quick-input-box input').fill('tsreview');
    await p.locator('.quick-input-widget .quick-input-box input').press('Enter');
    await p.locator('.quick-input-widget .quick-input-message', { hasText: 'Arguments: <file>' }).waitFor({ timeout: 10000 });
    await answerInputBox(p, 'tsdemo/report.ts');
    await view.locator('.entry.user', { hasText: '/tsreview tsdemo/report.ts' }).waitFor({ timeout: 20000 });
    await view.locator('.entry.outcome').nth(before).waitFor({ timeout: 60000 });
    await view.locator('.answer', { hasText: 'The answer is 42' }).last().waitFor();
  });
}

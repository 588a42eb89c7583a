// A rename the user edits before accepting, in the real workbench: the scripted model's `lsp`
// rename of a TypeScript function is answered by VS Code's built-in TypeScript features; its
// three files come as one review (a diff each); the user types into the proposed side of two
// of them and accepts once. The files hold the user's versions (tests/editors/test_vscode.py
// checks what the model was told). Registered by workbench.mjs after the review cases; the
// project is written here, before any case runs.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { answerInputBox, runCommand, waitForFile } from './harness.mjs';

/** The TypeScript project the rename changes (tests/editors/_vscode_renames.py knows it). */
export const RN_FILES = {
  'rndemo/tsconfig.json': '{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "ES2022" }, "include": ["*.ts"] }\n',
  'rndemo/shapes.ts': '// Shapes.\nexport function area(side: number): number {\n  return side * side;\n}\n',
  'rndemo/small.ts': "import { area } from './shapes';\n\nexport const small = area(2);\n",
  'rndemo/large.ts': "import { area } from './shapes';\n\nexport const large = area(40);\n",
};

export function renameCases({ page, test, workspace, shots }) {
  for (const [name, text] of Object.entries(RN_FILES)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  const read = (name) => fs.readFileSync(path.join(workspace, name), 'utf8');

  /** Opens `name` with Quick Open and returns its (plain) editor. */
  async function open(p, name) {
    await p.keyboard.press('Control+P');
    const input = p.locator('.quick-input-widget .quick-input-box input');
    await input.fill(name);
    await p.locator('.quick-input-list .monaco-list-row.focused', { hasText: path.basename(name) }).first().waitFor();
    await input.press('Enter');
    await p.locator('.tabs-container .tab.active', { hasText: path.basename(name) }).waitFor();
    return p.locator('.editor-instance .monaco-editor:not(.monaco-diff-editor *)').first();
  }

  /** Activates the diff of `name` and types `typed` at the end of its proposed line `line`. */
  async function editProposal(p, name, line, typed) {
    const tab = p.locator('.tabs-container .tab', { hasText: `${name} ↔ proposed by Ink` });
    await tab.click();
    await p.locator('.tabs-container .tab.active', { hasText: `${name} ↔ proposed by Ink` }).waitFor();
    const proposed = p.locator('.monaco-diff-editor .modified');
    await proposed.locator('.view-line', { hasText: line }).last().click();
    await p.keyboard.press('End');
    await p.keyboard.type(typed);
    await proposed.locator('.view-line', { hasText: typed.trim() }).first().waitFor();
  }

  test("rename: the user edits two of the rename's three proposed files; their versions land", async () => {
    const p = page();
    await runCommand(p, 'Ink: New Session');
    // As a user works: small.ts open, its TypeScript project loaded (a hover answers), so the
    // rename comes from the project's server, not the syntax-only one.
    const editor = await open(p, 'rndemo/small.ts');
    const call = editor.locator('.view-line', { hasText: 'export const small = area(2);' }).locator('span span', { hasText: /^area$/ });
    const hover = p.locator('.monaco-hover', { hasText: 'area(side: number): number' });
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
    await p.mouse.move(5, 5);

    await runCommand(p, 'Ink: Ask…');
    await answerInputBox(p, '[rn-ts] rename area to surface');
    for (const name of ['shapes.ts', 'small.ts', 'large.ts']) {
      await p.locator('.tabs-container .tab', { hasText: `${name} ↔ proposed by Ink` }).waitFor({ timeout: 90000 });
    }
    await editProposal(p, 'shapes.ts', 'return side * side;', ' // squared');
    await editProposal(p, 'small.ts', 'export const small = surface(2);', ' // mine');
    await p.screenshot({ path: path.join(shots, 'vscode-rename-edited.png') });
    await p.locator('.editor-actions a.action-label[aria-label="Accept Edit"]').click();
    await p.locator('.tabs-container .tab', { hasText: '↔ proposed by Ink' }).first().waitFor({ state: 'detached', timeout: 20000 });

    await waitForFile(path.join(workspace, 'rndemo/small.ts'), (t) => t.includes('surface(2); // mine'));
    assert.equal(read('rndemo/shapes.ts'), '// Shapes.\nexport function surface(side: number): number {\n  return side * side; // squared\n}\n');
    assert.equal(read('rndemo/small.ts'), "import { surface } from './shapes';\n\nexport const small = surface(2); // mine\n");
    assert.equal(read('rndemo/large.ts'), "import { surface } from './shapes';\n\nexport const large = surface(40);\n");
    // the open buffer holds what landed, saved
    await editor.locator('.view-lines', { hasText: 'surface(2); // mine' }).waitFor({ timeout: 10000 });
    await p.locator('.tabs-container .tab:not(.dirty)', { hasText: 'small.ts' }).waitFor();
    assert.equal(await p.locator('.monaco-dialog-box').count(), 0, 'closing the edited proposals asked something');
  });
}

// The Ink extension in the real VS Code workbench (code-server + headless chromium) against the
// real ink-ls and the pytest wrapper's scripted model (INK_TEST_MODEL_URL): ask from the palette,
// reject and accept edits in the diff view, approve a command in the modal; then the Ink panel
// (panel_cases.mjs). Prints
// `PASS <case>` / `FAIL <case>: <why>`; screenshots go to INK_SCREENSHOT_DIR.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
  answerInputBox,
  openWorkbench,
  repoRoot,
  runCommand,
  userSettingsFile,
  waitForFile,
} from './harness.mjs';
import { intelCases } from './intel_cases.mjs';
import { intel2Cases } from './intel2_cases.mjs';
import { panelCases } from './panel_cases.mjs';
import { planCases } from './plan_cases.mjs';
import { renameCases } from './rename_cases.mjs';
import { reviewCases } from './review_cases.mjs';

const workspace = process.env.INK_TEST_WORKSPACE;
const modelUrl = process.env.INK_TEST_MODEL_URL;
const tmp = fs.mkdtempSync(path.join(process.env.INK_TEST_TMP ?? os.tmpdir(), 'workbench-'));
const shots = process.env.INK_SCREENSHOT_DIR ?? tmp;
const serverPath = process.env.INK_TEST_SERVER ?? path.join(repoRoot, '.venv', 'bin', 'ink-ls');

const settings = {
  'ink.server.path': serverPath,
  'ink.model.baseUrl': modelUrl,
  'ink.model.name': 'fake-model',
  'ink.model.apiKeyEnv': 'INK_TEST_KEY',
  'ink.approval': 'ask',
};

const started = Date.now();
const { page, close } = await openWorkbench({ tmp, workspace, settings });

/** Reloads the window (a new extension host and ink-ls) and waits for the workbench. */
async function reopen() {
  await page.reload();
  await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
  await page.locator('.part.sidebar').waitFor({ timeout: 60000 });
  return page;
}
console.log(`workbench open in ${Date.now() - started} ms`);

/** The transcript (the "Ink" output channel in the panel). */
const transcript = (needle) => page.locator('.part.panel .view-lines', { hasText: needle }).first();

/** Asks from the palette, as a user would. */
async function ask(prompt) {
  await runCommand(page, 'Ink: Ask…');
  await answerInputBox(page, prompt);
}

/** Waits for the diff the extension opens for an edit and returns its editor-title actions. */
async function diffReview(fileName) {
  const tab = page.locator('.tabs-container .tab', { hasText: `${fileName} ↔ proposed by Ink` });
  await tab.waitFor({ timeout: 20000 });
  await page.locator('.monaco-diff-editor').first().waitFor();
  return {
    accept: page.locator('.editor-actions a.action-label[aria-label="Accept Edit"]'),
    reject: page.locator('.editor-actions a.action-label[aria-label="Reject Edit"]'),
    tab,
  };
}

const read = (name) => fs.readFileSync(path.join(workspace, name), 'utf8');

const cases = [];
const test = (name, fn) => cases.push({ name, fn });

test('ask from the palette shows the answer', async () => {
  // With README.md open, "Ink: Ask…" sends it as context (the wrapper checks the model saw it).
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).click();
  await page.locator('.tabs-container .tab', { hasText: 'README.md' }).waitFor();
  await ask('[hello] what is the answer?');
  await transcript('The answer is 42. Hello from Ink!').waitFor({ timeout: 30000 });
  await transcript('[done · turn t1').waitFor();
});

test('edit rejected in the diff leaves the file unchanged', async () => {
  await ask('[edit-reject] please change keep.txt');
  const review = await diffReview('keep.txt');
  // The proposed side shows the new text before anything is written.
  await page.locator('.monaco-diff-editor .modified', { hasText: 'Keep me as I am, please.' }).waitFor();
  await review.reject.click();
  await transcript('the user rejected this edit in the diff view').waitFor({ timeout: 20000 });
  await transcript('[done · turn t2').waitFor();
  await review.tab.waitFor({ state: 'detached' });
  assert.equal(read('keep.txt'), 'Keep me as I am.\n');
});

test('edit accepted in the diff is applied, saved and undoable', async () => {
  await ask('[edit-accept] change greet.txt');
  const review = await diffReview('greet.txt');
  await page.locator('.monaco-diff-editor .modified', { hasText: 'Goodbye, world!' }).waitFor();
  await page.locator('.monaco-diff-editor .original', { hasText: 'Hello, world!' }).waitFor();
  // For the picture: the pointer on Accept shows its name (cosmetic, so not waited on hard).
  await review.accept.hover();
  await page.locator('.workbench-hover, .monaco-hover', { hasText: 'Accept Edit' }).first().waitFor({ timeout: 3000 }).catch(() => {});
  await page.screenshot({ path: path.join(shots, 'vscode-diff-approval.png') });
  await review.accept.click();
  await transcript('[done · turn t3').waitFor({ timeout: 20000 });
  await review.tab.waitFor({ state: 'detached' });
  assert.equal(read('greet.txt'), 'Goodbye, world!\n');
  // The edit went through VS Code's normal path: it is on the file's undo stack.
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'greet.txt' }).click();
  const editor = page.locator('.editor-instance .monaco-editor:not(.monaco-diff-editor *)').first();
  await editor.locator('.view-lines', { hasText: 'Goodbye, world!' }).waitFor();
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+Z');
  await editor.locator('.view-lines', { hasText: 'Hello, world!' }).waitFor({ timeout: 5000 });
  await page.keyboard.press('Control+Shift+Z');
  await editor.locator('.view-lines', { hasText: 'Goodbye, world!' }).waitFor({ timeout: 5000 });
  // Back at the saved version: the tab is not dirty.
  await page.locator('.tabs-container .tab:not(.dirty)', { hasText: 'greet.txt' }).waitFor();
});

test('command approved in the modal runs', async () => {
  await ask('[command] run it');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 20000 });
  await dialog.locator('.dialog-message-text', { hasText: 'Ink wants to run a command:' }).waitFor();
  await dialog.locator('.dialog-message-detail', { hasText: 'echo ran > ran.txt && echo command ran' }).waitFor();
  const buttons = await dialog.locator('.dialog-buttons .monaco-button').allInnerTexts();
  for (const title of ['Allow once', 'Always allow', 'Reject']) {
    assert.ok(buttons.includes(title), `dialog buttons ${JSON.stringify(buttons)} lack ${title}`);
  }
  await page.screenshot({ path: path.join(shots, 'vscode-command-approval.png') });
  await dialog.locator('.dialog-buttons .monaco-button', { hasText: 'Allow once' }).click();
  await transcript('[done · turn t4').waitFor({ timeout: 20000 });
  await transcript('command ran').waitFor();
  assert.equal(read('ran.txt'), 'ran\n');
});

test('cancel from the progress notification ends the turn', async () => {
  await ask('[hang] think forever');
  const toast = page.locator('.notification-toast', { hasText: '[hang] think forever' });
  await toast.waitFor({ timeout: 20000 });
  await toast.locator('.monaco-button', { hasText: 'Cancel' }).click();
  await transcript('[cancelled · turn t5').waitFor({ timeout: 20000 });
  // The turn's progress notification closes when the turn ends.
  await page.locator('.notification-toast', { hasText: 'Ink' }).waitFor({ state: 'detached' });
});

test('ask about the selection sends the selected lines', async () => {
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).click();
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.locator('.view-line', { hasText: 'Run `make` to build.' }).click();
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+End');
  await runCommand(page, 'Ink: Ask About Selection');
  await answerInputBox(page, '[hello] explain the selection');
  await transcript('(about README.md line 3)').waitFor({ timeout: 20000 });
  await transcript('[done · turn t6').waitFor({ timeout: 20000 });
});

test('cancel during an edit review closes the diff and changes nothing', async () => {
  await ask('[edit-cancel] change keep.txt, then I cancel');
  const review = await diffReview('keep.txt');
  const toast = page.locator('.notification-toast', { hasText: 'edit keep.txt' });
  await toast.locator('.monaco-button', { hasText: 'Cancel' }).click();
  await transcript('[cancelled · turn t7').waitFor({ timeout: 20000 });
  await review.tab.waitFor({ state: 'detached' });
  assert.equal(read('keep.txt'), 'Keep me as I am.\n');
});

test('closing the diff rejects the edit', async () => {
  await ask('[edit-reject] change keep.txt; I close the diff');
  const review = await diffReview('keep.txt');
  await review.tab.hover();
  await review.tab.locator('.tab-actions .action-label').click();
  await transcript('the user closed the edit review without accepting it').waitFor({ timeout: 20000 });
  await transcript('[done · turn t8').waitFor();
  assert.equal(read('keep.txt'), 'Keep me as I am.\n');
});

test('a settings change reaches the server: readonly refuses edits without a diff', async () => {
  // As a user would: the Settings editor, search, pick "readonly" for Ink: Approval.
  await runCommand(page, 'Preferences: Open Settings (UI)');
  await page.locator('.settings-editor').waitFor();
  // The search box (a small editor) has the focus when the Settings editor opens.
  await page.keyboard.type('ink.approval');
  const item = page.locator('.settings-editor .setting-item-contents', { hasText: 'What the agent may do without asking' });
  await item.locator('select').selectOption('readonly');
  await waitForFile(userSettingsFile(tmp), (text) => JSON.parse(text)['ink.approval'] === 'readonly');
  await page.keyboard.press('Escape');
  await page.locator('.settings-editor').waitFor({ state: 'hidden' });
  // The change is sent as workspace/didChangeConfiguration (the server log says so) and the
  // next turn runs read-only.
  await runCommand(page, 'Ink: Show Log');
  await page.locator('.part.panel .view-lines', { hasText: 'settings sent to ink-ls: approval readonly' }).waitFor({ timeout: 20000 });
  await runCommand(page, 'Ink: Show Transcript');
  await ask('[edit-reject] change keep.txt while read-only');
  await transcript('approval mode is readonly: files are not changed').waitFor({ timeout: 20000 });
  await transcript('[done · turn t9').waitFor();
  assert.equal(await page.locator('.tabs-container .tab', { hasText: 'proposed by Ink' }).count(), 0);
  assert.equal(read('keep.txt'), 'Keep me as I am.\n');
});

test('the transcript shows the conversation', async () => {
  await runCommand(page, 'View: Toggle Maximized Panel');
  await transcript('[done · turn t9').waitFor();
  // From the top: the answer, an edit rejected, one accepted, a command.
  await page.locator('.part.panel .view-lines').first().click();
  await page.keyboard.press('Control+Home');
  await transcript('[hello] what is the answer?').waitFor();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  await page.locator('.notification-toast', { hasText: 'Ink' }).waitFor({ state: 'detached' });
  await page.screenshot({ path: path.join(shots, 'vscode-transcript.png') });
});

test('approval auto: an unsaved open file gets the edit without a diff, saved and undoable', async () => {
  await runCommand(page, 'View: Toggle Maximized Panel'); // back from the transcript case
  // As a user would, in the Settings editor (as in the readonly case).
  await runCommand(page, 'Preferences: Open Settings (UI)');
  await page.locator('.settings-editor').waitFor();
  await page.keyboard.type('ink.approval');
  const item = page.locator('.settings-editor .setting-item-contents', { hasText: 'What the agent may do without asking' });
  await item.locator('select').selectOption('auto');
  await waitForFile(userSettingsFile(tmp), (text) => JSON.parse(text)['ink.approval'] === 'auto');
  await page.keyboard.press('Escape');
  await page.locator('.settings-editor').waitFor({ state: 'hidden' });
  await runCommand(page, 'Ink: Show Log');
  await page.locator('.part.panel .view-lines', { hasText: 'settings sent to ink-ls: approval auto' }).waitFor({ timeout: 20000 });
  await runCommand(page, 'Ink: Show Transcript');
  // The user types into auto.txt and does not save.
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'auto.txt' }).click();
  const editor = page.locator('.editor-instance .monaco-editor:not(.monaco-diff-editor *)').first();
  await editor.locator('.view-lines', { hasText: 'A draft.' }).click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('Note: ');
  await page.locator('.tabs-container .tab.dirty', { hasText: 'auto.txt' }).waitFor();
  // Any diff tab that opens during the turn is a failure (the turn would also wait for it).
  let diffs = 0;
  const watch = setInterval(() => {
    void page.locator('.tabs-container .tab', { hasText: 'proposed by Ink' }).count().then((n) => (diffs += n), () => {});
  }, 50);
  try {
    await ask('[auto-edit] finish auto.txt');
    // (the transcript case left the transcript scrolled to its top: watch the file instead)
    await waitForFile(path.join(workspace, 'auto.txt'), (text) => text === 'Note: A final.\n');
  } finally {
    clearInterval(watch);
  }
  assert.equal(diffs, 0, 'a diff view opened for a pre-approved edit');
  assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'an approval dialog opened');
  // The buffer got the edit on top of the unsaved text, and it was saved.
  await editor.locator('.view-lines', { hasText: 'Note: A final.' }).waitFor({ timeout: 5000 });
  await page.locator('.tabs-container .tab:not(.dirty)', { hasText: 'auto.txt' }).waitFor();
  assert.equal(read('auto.txt'), 'Note: A final.\n');
  // Through VS Code's normal edit path: undo takes back only the agent's edit.
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+Z');
  await editor.locator('.view-lines', { hasText: 'Note: A draft.' }).waitFor({ timeout: 5000 });
  await page.keyboard.press('Control+Shift+Z');
  await editor.locator('.view-lines', { hasText: 'Note: A final.' }).waitFor({ timeout: 5000 });
  await page.locator('.tabs-container .tab:not(.dirty)', { hasText: 'auto.txt' }).waitFor();
});

test('the diagnostics of an edit reach the model (built-in JSON language features)', async () => {
  // data.json is open (its language features are running) when the model breaks it
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'data.json' }).click();
  await page.locator('.tabs-container .tab', { hasText: 'data.json' }).waitFor();
  await page.locator('.statusbar-item', { hasText: 'JSON' }).first().waitFor({ timeout: 20000 });
  await ask('[json-write] break data.json');
  // the model's last step writes json-done.txt after it got the write's result
  await waitForFile(path.join(workspace, 'json-done.txt'), (text) => text === 'done\n');
  assert.equal(read('data.json'), '{"name": "demo",, "size": }\n');
});

panelCases({ page: () => page, test, workspace, tmp, shots, reopen });
intelCases({ page: () => page, test, workspace });
intel2Cases({ page: () => page, test, workspace });
planCases({ page: () => page, test, workspace, tmp, shots });
reviewCases({ page: () => page, test, workspace, shots });
renameCases({ page: () => page, test, workspace, shots });

let failed = 0;
try {
  for (const c of cases) {
    const t0 = Date.now();
    try {
      await c.fn();
      console.log(`PASS ${c.name} (${Date.now() - t0} ms)`);
    } catch (err) {
      failed++;
      console.log(`FAIL ${c.name}: ${err instanceof Error ? err.stack : err}`);
      await page.screenshot({ path: path.join(tmp, `fail-${cases.indexOf(c)}.png`) }).catch(() => {});
      console.log(`screenshot: ${path.join(tmp, `fail-${cases.indexOf(c)}.png`)}`);
    }
  }
} finally {
  await close();
}
console.log(`total ${Date.now() - started} ms`);
process.exit(failed > 0 ? 1 : 0);

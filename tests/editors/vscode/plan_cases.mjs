// Plan mode and the to-do checklist in the Ink panel, in the real workbench: the header's mode
// switch offers Plan; in plan mode the model's edit is refused and its plan is shown with
// "Approve and continue in ask/auto mode" while the file is still unchanged; after "Approve and
// continue in auto mode" the same turn changes the file. The model's `todo_write` list is one
// checklist block, updated in place as the list is sent again. Registered by workbench.mjs after
// the panel's cases. Screenshot: vscode-plan-approval.png, vscode-todo-checklist.png.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { userSettingsFile, waitForFile } from './harness.mjs';
import { openPanel, panelFrame } from './panel_cases.mjs';

export function planCases({ page, test, workspace, tmp, shots }) {
  const read = (name) => fs.readFileSync(path.join(workspace, name), 'utf8');

  test('plan: the mode switch offers Plan; nothing changes before the approval, the same turn changes the file after it; the to-do checklist updates in place', async () => {
    const p = page();
    const view = await openPanel(p);
    await p.locator('.part.sidebar .title-actions .action-label[aria-label="New Session"]').click();
    await view.locator('.empty').waitFor({ state: 'visible' });
    const mode = view.locator('select.approval-mode');
    const offered = await mode.locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
    assert.deepEqual(offered, [['ask', 'Ask'], ['auto', 'Auto'], ['readonly', 'Read-only'], ['plan', 'Plan']]);
    await mode.selectOption('plan');
    await waitForFile(userSettingsFile(tmp), (text) => JSON.parse(text)['ink.approval'] === 'plan');

    const box = view.locator('textarea.prompt');
    await box.fill('[plan-edit] make plan.txt final');
    await box.press('Enter');

    // The plan phase: the checklist shows the model's list, its edit is refused by plan mode.
    const todos = view.locator('.entry.todos');
    await todos.locator('.todos-summary', { hasText: '0 of 2 done' }).waitFor({ timeout: 20000 });
    assert.deepEqual(await todos.locator('li.todo').evaluateAll((ls) => ls.map((l) => l.getAttribute('aria-label'))), [
      '[ ] read plan.txt',
      '[ ] change draft to final',
    ]);
    const refused = view.locator('.card[data-kind="edit"]').last();
    await refused.locator('.card-status', { hasText: 'refused' }).waitFor({ timeout: 20000 });

    // The plan, with its approval choices, while nothing has changed yet.
    const dialog = p.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 20000 });
    await dialog.locator('.dialog-message-text', { hasText: 'Ink has a plan. Approve it and continue?' }).waitFor();
    await dialog.locator('.dialog-message-detail', { hasText: 'Plan: 1. change draft to final in plan.txt' }).waitFor();
    const buttons = await dialog.locator('.dialog-buttons .monaco-button').allInnerTexts();
    for (const title of ['Approve and continue in ask mode', 'Approve and continue in auto mode']) {
      assert.ok(buttons.includes(title), `plan buttons ${JSON.stringify(buttons)} lack ${title}`);
    }
    assert.equal(read('plan.txt'), 'A draft plan.\n', 'the file changed before the approval');
    await p.screenshot({ path: path.join(shots, 'vscode-plan-approval.png') });
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: 'Approve and continue in auto mode' }).click();

    // The same turn goes on in auto mode: the file changes, the list is updated in place.
    await waitForFile(path.join(workspace, 'plan.txt'), (text) => text === 'A final plan.\n');
    await todos.locator('.todos-summary', { hasText: '2 of 2 done' }).waitFor({ timeout: 20000 });
    assert.equal(await view.locator('.entry.todos').count(), 1, 'one checklist, updated in place');
    assert.deepEqual(await todos.locator('li.todo').evaluateAll((ls) => ls.map((l) => l.dataset.status)), ['completed', 'completed']);
    await view.locator('.entry.outcome', { hasText: 'done' }).last().waitFor({ timeout: 20000 });
    assert.equal(await view.locator('.entry.user').count(), 1, 'the approval did not start another prompt');
    await todos.scrollIntoViewIfNeeded();
    await p.screenshot({ path: path.join(shots, 'vscode-todo-checklist.png') });
    await panelFrame(p).locator('select.approval-mode').selectOption('ask');
    await waitForFile(userSettingsFile(tmp), (text) => JSON.parse(text)['ink.approval'] === 'ask');
  });
}

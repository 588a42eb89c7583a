// Undo and review in the real workbench (registered by workbench.mjs after the panel's cases;
// approval mode "ask", the Ink panel in the side bar): an edited proposal is what lands; a
// rewind moves an open buffer with the agent's change and reports a user's unsaved edit as a
// conflict (kept, not lost); the multi-file review of a turn opens with its files and a hunk
// reverted there (Diff Editor: Revert, then save) is reverted on disk.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { answerInputBox, runCommand, waitForFile } from './harness.mjs';

export function reviewCases({ page, test, workspace, shots }) {
  const read = (name) => fs.readFileSync(path.join(workspace, name), 'utf8');
  const exists = (name) => fs.existsSync(path.join(workspace, name));

  async function ask(p, prompt) {
    await runCommand(p, 'Ink: Ask…');
    await answerInputBox(p, prompt);
  }

  /** Opens a file from the palette's file search (F1, then its name without ">"). */
  async function openFile(p, name) {
    const input = p.locator('.quick-input-widget .quick-input-box input');
    const row = p.locator('.quick-input-list .monaco-list-row', { hasText: name }).first();
    for (let attempt = 0; ; attempt++) {
      await p.keyboard.press('F1');
      try {
        await input.waitFor({ timeout: 3000 });
        await input.fill(name, { timeout: 3000 });
        await row.waitFor({ timeout: 3000 });
        await row.click({ timeout: 3000 });
        break;
      } catch (err) {
        if (attempt === 3) throw err;
        await p.keyboard.press('Escape');
      }
    }
    await p.locator('.tabs-container .tab.active', { hasText: name }).waitFor();
    return p.locator('.editor-instance .monaco-editor:not(.monaco-diff-editor *)').first();
  }

  /** Ink: Review Changes…, picking the turn that shows `needle` once its turn has ended (the
   * list offers a turn when its changes are recorded). */
  async function reviewTurn(p, needle) {
    const row = p.locator('.quick-input-list .monaco-list-row', { hasText: needle }).first();
    const deadline = Date.now() + 30000;
    for (;;) {
      await runCommand(p, 'Ink: Review Changes…');
      try {
        await row.waitFor({ timeout: 3000 });
        await row.click();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await p.keyboard.press('Escape');
      }
    }
  }

  /** Accepts the diff review of `name` from the editor title. */
  async function acceptDiff(p, name) {
    const tab = p.locator('.tabs-container .tab', { hasText: `${name} ↔ proposed by Ink` });
    await tab.waitFor({ timeout: 60000 });
    await p.locator('.editor-actions a.action-label[aria-label="Accept Edit"]').click();
    await tab.waitFor({ state: 'detached', timeout: 20000 });
  }

  /** Ink: Rewind…, picking the row that shows `needle`. */
  async function rewindTo(p, needle) {
    await runCommand(p, 'Ink: Rewind…');
    const row = p.locator('.quick-input-list .monaco-list-row', { hasText: needle }).first();
    await row.waitFor({ timeout: 20000 });
    await row.click();
  }

  /** The end of a turn that changed `n` files: the status bar offers their review. */
  const reviewOffer = (p, n) => p.locator('.statusbar-item', { hasText: `Review ${n} file` }).first();

  test('review: an edited proposal is what lands (the model is told)', async () => {
    const p = page();
    // a wide editor area: the diffs side by side (the panel's cases widened the side bar)
    await runCommand(p, 'View: Close Primary Side Bar');
    await runCommand(p, 'Ink: New Session');
    await ask(p, '[rv-edit] change rv.txt');
    const tab = p.locator('.tabs-container .tab', { hasText: 'rv.txt ↔ proposed by Ink' });
    await tab.waitFor({ timeout: 60000 });
    const proposed = p.locator('.monaco-diff-editor .modified');
    const line = proposed.locator('.view-line', { hasText: 'beta' }).last();
    await line.waitFor();
    // the user rewrites the proposed side, then accepts
    await line.click();
    await p.keyboard.press('Control+A');
    await p.keyboard.type('gamma, mine');
    await p.keyboard.press('Enter');
    await proposed.locator('.view-line', { hasText: 'gamma, mine' }).first().waitFor();
    await p.screenshot({ path: path.join(shots, 'vscode-edited-proposal.png') });
    await p.locator('.editor-actions a.action-label[aria-label="Accept Edit"]').click();
    await tab.waitFor({ state: 'detached', timeout: 20000 });
    await waitForFile(path.join(workspace, 'rv.txt'), (t) => t === 'gamma, mine\n');
    await reviewOffer(p, 1).waitFor({ timeout: 20000 });
    assert.equal(await p.locator('.monaco-dialog-box').count(), 0, 'closing the edited proposal asked something');
  });

  test("rewind: the open buffer follows the agent's change; an unsaved edit is a conflict, kept", async () => {
    const p = page();
    const editor = await openFile(p, 'rw.txt');
    await ask(p, '[rv-turn] change rw.txt, add rw-new.txt');
    await acceptDiff(p, 'rw.txt');
    await acceptDiff(p, 'rw-new.txt');
    await reviewOffer(p, 2).waitFor({ timeout: 20000 });
    assert.equal(read('rw.txt'), 'two\n');

    await rewindTo(p, '[rv-turn]'); // entry 2: back to before it
    await p.locator('.tabs-container .tab', { hasText: 'Ink: rewind to before 2' }).waitFor({ timeout: 20000 });
    await waitForFile(path.join(workspace, 'rw.txt'), (t) => t === 'one\n');
    assert.equal(exists('rw-new.txt'), false, 'the created file is gone');
    await openFile(p, 'rw.txt');
    await editor.locator('.view-lines', { hasText: 'one' }).waitFor({ timeout: 10000 });
    await p.locator('.tabs-container .tab:not(.dirty)', { hasText: 'rw.txt' }).waitFor();

    await rewindTo(p, 'rewind to 2'); // entry 3, the rewind: undoing it brings turn 2 back
    await waitForFile(path.join(workspace, 'rw.txt'), (t) => t === 'two\n');
    await openFile(p, 'rw.txt');
    await editor.locator('.view-lines', { hasText: 'two' }).waitFor({ timeout: 10000 });

    // the user types without saving, then rewinds again: asked, and "Keep mine" keeps it
    await editor.locator('.view-lines').click();
    await p.keyboard.press('Control+Home');
    await p.keyboard.type('mine ');
    await p.locator('.tabs-container .tab.dirty', { hasText: 'rw.txt' }).waitFor();
    await rewindTo(p, '[rv-turn]');
    const dialog = p.locator('.monaco-dialog-box', { hasText: 'you changed rw.txt since the agent did' });
    await dialog.waitFor({ timeout: 20000 });
    await p.screenshot({ path: path.join(shots, 'vscode-rewind-conflict.png') });
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: 'Keep mine' }).click();
    await p.locator('.notifications-toasts', { hasText: 'kept your version of rw.txt' }).waitFor({ timeout: 20000 });
    assert.equal(exists('rw-new.txt'), false, 'the other file was rewound');
    assert.equal(read('rw.txt'), 'two\n', 'the file on disk was left alone');
    await openFile(p, 'rw.txt');
    await editor.locator('.view-lines', { hasText: 'mine two' }).waitFor({ timeout: 10000 });
    await p.locator('.tabs-container .tab.dirty', { hasText: 'rw.txt' }).waitFor();
    await runCommand(p, 'File: Revert File'); // leave no dirty editor behind
    await p.locator('.tabs-container .tab:not(.dirty)', { hasText: 'rw.txt' }).waitFor();
  });

  test("review: the turn's files open in the multi-file review; a hunk reverted there is reverted on disk", async () => {
    const p = page();
    await ask(p, '[rv-multi] change m1.txt and m2.txt');
    await acceptDiff(p, 'm1.txt');
    await acceptDiff(p, 'm2.txt');
    await waitForFile(path.join(workspace, 'm2.txt'), (t) => t === 'second\n');
    await reviewTurn(p, '[rv-multi]');
    await p.locator('.tabs-container .tab.active', { hasText: 'Ink: changes of turn' }).waitFor({ timeout: 20000 });
    const multi = p.locator('.multiDiffEditor');
    await multi.waitFor({ timeout: 20000 });
    const entry = (name) => multi.locator('.multiDiffEntry', { hasText: name }).first();
    await entry('m1.txt').waitFor();
    await entry('m2.txt').waitFor();
    await p.screenshot({ path: path.join(shots, 'vscode-review-changes.png') });
    // the pointer on m1.txt's second hunk shows its revert arrow (the diff editor's "Revert
    // Block" in the gutter); clicking it, then saving, reverts that hunk on disk
    const line = entry('m1.txt').locator('.modified .view-line', { hasText: 'L8' });
    await line.click();
    await line.hover();
    const target = await line.boundingBox();
    const buttons = entry('m1.txt').locator('.codicon-arrow-right');
    await buttons.first().waitFor({ timeout: 10000 });
    let best;
    for (const b of await buttons.all()) {
      const box = await b.boundingBox();
      if (box !== null && (best === undefined || Math.abs(box.y - target.y) < best.d)) {
        best = { b, d: Math.abs(box.y - target.y) };
      }
    }
    await best.b.click();
    await entry('m1.txt').locator('.modified .view-line', { hasText: 'l8' }).waitFor({ timeout: 10000 });
    await entry('m1.txt').locator('.modified .view-line', { hasText: 'l8' }).click();
    await p.keyboard.press('Control+S');
    await waitForFile(path.join(workspace, 'm1.txt'), (t) => t === 'l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n');
    // the save may rewrite m2.txt too (same text): wait out a write in progress
    await waitForFile(path.join(workspace, 'm2.txt'), (t) => t === 'second\n');
  });
}

// The Ink panel (the webview view in the activity bar) in the real workbench, asserted on the
// webview's DOM (two nested iframes): a turn with a read, a command approved on its card, an
// edit accepted on its card (the native diff closes) and a markdown answer; Stop; a past
// session resumed after reloading the window. Registered by workbench.mjs after its own cases
// (same code-server, same ink-ls state directory). Screenshots: vscode-panel-{dark,light}.png.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { runCommand, userSettingsFile, waitForFile } from './harness.mjs';

/** The panel's document: the view's webview iframe, then its active frame. */
export function panelFrame(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/** Opens the Ink view (as a user would: the command, or its activity bar icon) and waits for it. */
export async function openPanel(page) {
  await runCommand(page, 'Ink: Open Panel');
  const view = panelFrame(page);
  await view.locator('textarea.prompt').waitFor({ timeout: 30000 });
  return view;
}

/** Switches the colour theme as a user would (Ctrl+K Ctrl+T, the theme picker). */
async function setTheme(page, theme) {
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+T');
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Light' }).first().waitFor();
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.fill(theme);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: theme }).first().waitFor();
  await input.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  await page.locator(`.monaco-workbench${theme.includes('Dark') ? '.vs-dark' : '.vs'}`).waitFor({ timeout: 10000 });
}

/** Opens a file with Go to File (the side bar keeps showing the panel). A key pressed while
 * the webview has the focus may reach the workbench late, so the picker is retried. */
async function openFile(page, name) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // The highlighted row (Enter opens it) must be the file: the list shows recent files first.
  const row = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: name }).first();
  for (let attempt = 0; ; attempt++) {
    // The key goes to the workbench, not to a focused webview or dialog.
    await page.locator('.part.editor').click({ position: { x: 200, y: 300 } });
    await page.keyboard.press('Control+P');
    try {
      await input.fill(name, { timeout: 3000 });
      await row.waitFor({ timeout: 3000 });
      await input.press('Enter', { timeout: 3000 });
      break;
    } catch (err) {
      if (attempt === 3) throw err;
      await page.keyboard.press('Escape');
    }
  }
  await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor();
}

/** Drags the side bar wider so the panel's picture reads well. */
async function widenSideBar(page, width) {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (box === null || box.width >= width) return;
  const x = box.x + box.width + 1;
  await page.mouse.move(x, box.y + 300);
  await page.mouse.down();
  await page.mouse.move(box.x + width, box.y + 300, { steps: 5 });
  await page.mouse.up();
}

export function panelCases({ page, test, workspace, tmp, shots, reopen }) {
  const read = (name) => fs.readFileSync(path.join(workspace, name), 'utf8');
  const get = () => ({ page: page(), view: panelFrame(page()) });

  test('panel: the approval mode is shown and switched from the header', async () => {
    const view = await openPanel(page());
    const mode = view.locator('select.approval-mode');
    // The previous case left the mode at auto (set in the Settings editor).
    await view.locator('select.approval-mode:has(option[value="auto"]:checked)').waitFor({ timeout: 10000 });
    await mode.selectOption('ask');
    await waitForFile(userSettingsFile(tmp), (text) => JSON.parse(text)['ink.approval'] === 'ask');
  });

  test('panel: a read, a command allowed on its card, an edit accepted on its card, a markdown answer', async () => {
    const { page: p, view } = get();
    await widenSideBar(p, 520);
    // A new session from the view's title bar (the palette's questions so far were in another).
    await p.locator('.part.sidebar .title-actions .action-label[aria-label="New Session"]').click();
    await view.locator('.empty').waitFor({ state: 'visible' });
    // One click attaches the selection: line 3 of README.md.
    await openFile(p, 'README.md');
    const editor = p.locator('.editor-instance .monaco-editor:not(.monaco-diff-editor *)').first();
    await editor.locator('.view-line', { hasText: 'Run `make` to build.' }).click();
    await p.keyboard.press('Home');
    await p.keyboard.press('Shift+End');
    await view.locator('button[data-action="attach"]').click();
    await view.locator('.input-chips .chip', { hasText: 'README.md:3' }).waitFor();
    // An @file mention attaches a file.
    const box = view.locator('textarea.prompt');
    await box.fill('');
    await box.pressSequentially('[panel-turn] look at @panel');
    const option = view.locator('ul.mentions li[aria-selected="true"]', { hasText: 'panel.txt' });
    await option.waitFor({ timeout: 10000 });
    await box.press('Enter');
    await view.locator('.input-chips .chip', { hasText: 'panel.txt' }).waitFor();
    await box.press('Enter');
    const user = view.locator('.entry.user').last();
    await user.locator('.chip', { hasText: 'README.md:3' }).waitFor({ timeout: 10000 });
    await user.locator('.chip', { hasText: 'panel.txt' }).waitFor();

    // The read: a card that finished, its output expandable.
    const readCard = view.locator('.card[data-kind="read"]', { hasText: 'read README.md' }).last();
    await readCard.locator('.card-status', { hasText: 'done' }).waitFor({ timeout: 20000 });
    await readCard.locator('summary').click();
    await readCard.locator('.card-output pre', { hasText: 'Run `make` to build.' }).waitFor();

    // The command asks on its card (no modal while the panel shows); Allow once runs it.
    const cmdCard = view.locator('.card[data-kind="execute"]').last();
    await cmdCard.locator('.approval', { hasText: 'echo panel > panel-ran.txt' }).waitFor({ timeout: 20000 });
    assert.equal(await p.locator('.monaco-dialog-box').count(), 0, 'a modal opened although the card asks');
    await p.screenshot({ path: path.join(shots, 'vscode-panel-approval.png') });
    await cmdCard.locator('button', { hasText: 'Allow once' }).click();
    await cmdCard.locator('.card-status', { hasText: 'done' }).waitFor({ timeout: 20000 });
    await cmdCard.locator('.answered', { hasText: 'Allow once' }).waitFor();
    assert.equal(read('panel-ran.txt'), 'panel\n');

    // The edit: the native diff opens and the card asks too; Accept on the card closes the diff.
    const diffTab = p.locator('.tabs-container .tab', { hasText: 'panel.txt ↔ proposed by Ink' });
    await diffTab.waitFor({ timeout: 20000 });
    const editCard = view.locator('.card[data-kind="edit"]').last();
    await editCard.locator('.approval button', { hasText: 'Review diff' }).waitFor();
    await editCard.locator('.approval button', { hasText: 'Accept' }).click();
    await diffTab.waitFor({ state: 'detached', timeout: 20000 });
    await editCard.locator('.answered', { hasText: 'accepted' }).waitFor({ timeout: 20000 });
    await waitForFile(path.join(workspace, 'panel.txt'), (t) => t === 'two\n');

    // The answer as markdown: a heading, bold, a highlighted code block with Copy / Insert.
    const answer = view.locator('.answer').last();
    await answer.locator('h2', { hasText: 'Summary' }).waitFor({ timeout: 20000 });
    await answer.locator('strong', { hasText: 'panel.txt' }).waitFor();
    await answer.locator('.code-block .code-lang', { hasText: 'python' }).waitFor();
    await answer.locator('.code-block code .hljs-keyword', { hasText: 'def' }).waitFor();
    await answer.locator('.code-block button', { hasText: 'Copy' }).waitFor();
    await view.locator('.entry.outcome', { hasText: 'done' }).last().waitFor({ timeout: 20000 });
    assert.equal(await answer.locator('li').count(), 2);
    // A card opens its file.
    await readCard.locator('button.card-title').click();
    await p.locator('.tabs-container .tab.active', { hasText: 'README.md' }).waitFor({ timeout: 10000 });
    // Insert at cursor puts the code block into the editor the user worked in.
    await openFile(p, 'notes.txt');
    await answer.locator('.code-block button', { hasText: 'Insert' }).click();
    await editor.locator('.view-lines', { hasText: 'return run("make")' }).waitFor({ timeout: 10000 });
    await setTheme(p, 'Dark Modern');
    await view.locator('.card[data-kind="read"]').last().scrollIntoViewIfNeeded();
    await p.screenshot({ path: path.join(shots, 'vscode-panel-dark.png') });
  });

  test('panel: Stop ends the running turn; ↑ brings back the last prompt', async () => {
    const { view } = get();
    const box = view.locator('textarea.prompt');
    await box.fill('[hang] stop me from the panel');
    await box.press('Enter');
    const stop = view.locator('button[data-action="stop"]');
    await stop.waitFor({ state: 'visible', timeout: 10000 });
    await view.locator('.entry.user', { hasText: '[hang] stop me from the panel' }).waitFor();
    await stop.click();
    await view.locator('.entry.outcome', { hasText: 'cancelled' }).last().waitFor({ timeout: 20000 });
    await view.locator('button[data-action="send"]').waitFor({ state: 'visible' });
    await box.press('ArrowUp');
    assert.equal(await box.inputValue(), '[hang] stop me from the panel');
    await box.fill('');
  });

  test('panel: a past session is resumed after reloading the window', async () => {
    let { page: p, view } = get();
    await runCommand(p, 'Ink: New Session');
    await view.locator('.empty').waitFor({ state: 'visible' });
    const box = view.locator('textarea.prompt');
    await box.fill('[hello] a second session');
    await box.press('Enter');
    await view.locator('.answer', { hasText: 'The answer is 42' }).waitFor({ timeout: 20000 });
    await view.locator('.entry.outcome', { hasText: 'done' }).waitFor();

    // Reload the window: a new extension host and a new ink-ls; the panel brings back the
    // session it showed, from the server's store.
    p = await reopen();
    view = await openPanel(p);
    await view.locator('.entry.user', { hasText: '[hello] a second session' }).waitFor({ timeout: 30000 });
    await view.locator('.answer', { hasText: 'The answer is 42' }).waitFor();

    // Sessions…: resume the panel's first session; its transcript comes back from the server.
    await runCommand(p, 'Ink: Sessions…');
    const row = p.locator('.quick-input-list .monaco-list-row', { hasText: '[panel-turn] look at @panel.txt' });
    await row.waitFor({ timeout: 20000 });
    await row.click();
    await view.locator('.entry.user', { hasText: '[panel-turn] look at @panel.txt' }).waitFor({ timeout: 20000 });
    await view.locator('.entry.user .chip', { hasText: 'README.md:3' }).waitFor();
    await view.locator('.card[data-kind="read"] .card-status', { hasText: 'done' }).waitFor();
    await view.locator('.card[data-kind="execute"] .card-status', { hasText: 'done' }).waitFor();
    await view.locator('.card[data-kind="edit"] .card-status', { hasText: 'done' }).waitFor();
    await view.locator('.answer h2', { hasText: 'Summary' }).waitFor();
    await view.locator('.answer .code-block code .hljs-keyword', { hasText: 'def' }).waitFor();
    assert.equal(await view.locator('.entry.user', { hasText: 'a second session' }).count(), 0);
    // Delete the other session from the list: it is gone from the list.
    await runCommand(p, 'Ink: Sessions…');
    const other = p.locator('.quick-input-list .monaco-list-row', { hasText: '[hello] a second session' });
    await other.hover();
    await other.locator('.action-label.codicon-trash').click();
    await other.waitFor({ state: 'detached', timeout: 10000 });
    await p.keyboard.press('Escape');
    await widenSideBar(p, 520);
    await setTheme(p, 'Light Modern');
    await p.screenshot({ path: path.join(shots, 'vscode-panel-light.png') });
  });
}

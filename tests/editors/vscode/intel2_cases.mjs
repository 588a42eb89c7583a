// More of the editor's intelligence in the real workbench: the scripted model's `lsp` calls for
// implementation, workspace symbols and outgoing calls answered by VS Code's built-in TypeScript
// features, and an `lsp` rename across two files: one review showing both files' diffs, Reject
// changing nothing, Accept changing both open buffers and both files. Registered by
// workbench.mjs after intel_cases.mjs (whose hover case has started the TypeScript server); the
// files are written here, before any case runs, into the project intel_cases.mjs writes.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { waitForFile } from './harness.mjs';
import { openPanel } from './panel_cases.mjs';

/** The files the `lsp` calls ask about (tests/editors/_vscode_intel2.py knows their lines). */
export const TS2_FILES = {
  'tsdemo/shapes.ts': [
    '// Shapes with an area.',
    'export interface Shape {',
    '  area(): number;',
    '}',
    '',
    'export class Square implements Shape {',
    '  constructor(private readonly side: number) {}',
    '',
    '  area(): number {',
    '    return this.side * this.side;',
    '  }',
    '}',
    '',
    'export class Circle implements Shape {',
    '  constructor(private readonly radius: number) {}',
    '',
    '  area(): number {',
    '    return Math.PI * this.radius * this.radius;',
    '  }',
    '}',
    '',
  ].join('\n'),
  'tsdemo/scale.ts': '// Scaling.\nexport function scale(value: number, factor: number): number {\n  return value * factor;\n}\n',
  'tsdemo/geometry.ts': [
    "import { Circle, type Shape, Square } from './shapes';",
    "import { scale } from './scale';",
    '',
    'export class Rect implements Shape {',
    '  constructor(',
    '    private readonly w: number,',
    '    private readonly h: number,',
    '  ) {}',
    '',
    '  area(): number {',
    '    return this.w * this.h;',
    '  }',
    '}',
    '',
    'export function totalArea(shapes: Shape[]): number {',
    '  return shapes.reduce((sum, s) => sum + s.area(), 0);',
    '}',
    '',
    'export function demo(): number {',
    '  const shapes = [new Square(2), new Circle(1), new Rect(2, 3)];',
    '  return scale(totalArea(shapes), 2);',
    '}',
    '',
  ].join('\n'),
};

export function intel2Cases({ page, test, workspace }) {
  for (const [name, text] of Object.entries(TS2_FILES)) {
    fs.writeFileSync(path.join(workspace, name), text);
  }
  const read = (name) => fs.readFileSync(path.join(workspace, name), 'utf8');
  const editor = (p) => p.locator('.editor-instance .monaco-editor:not(.monaco-diff-editor *)').first();

  /** Sends `prompt` from the panel; returns the index of its outcome entry (to wait on). */
  async function send(view, prompt) {
    const box = view.locator('textarea.prompt');
    const before = await view.locator('.entry.outcome').count();
    await box.fill(prompt);
    await box.press('Enter');
    await view.locator('.entry.user', { hasText: prompt }).waitFor({ timeout: 10000 });
    return before;
  }

  /** The answer of the turn whose outcome is entry `n`, once it has ended. */
  async function answerOf(view, n, needle) {
    await view.locator('.entry.outcome').nth(n).waitFor({ timeout: 90000 });
    const answer = view.locator('.answer', { hasText: needle }).last();
    await answer.waitFor({ timeout: 10000 });
    return answer.innerText();
  }

  /** Opens `name` with Go to File as a user would; its editor is the active one. */
  async function openFile(p, name) {
    const input = p.locator('.quick-input-widget .quick-input-box input');
    const row = p.locator('.quick-input-list .monaco-list-row.focused', { hasText: path.basename(name) }).first();
    for (let attempt = 0; ; attempt++) {
      await p.locator('.part.editor').click({ position: { x: 200, y: 300 } });
      await p.keyboard.press('Control+P');
      try {
        await input.fill(name, { timeout: 3000 });
        await row.waitFor({ timeout: 3000 });
        await input.press('Enter', { timeout: 3000 });
        break;
      } catch (err) {
        if (attempt === 3) throw err;
        await p.keyboard.press('Escape');
      }
    }
    await p.locator('.tabs-container .tab.active', { hasText: path.basename(name) }).waitFor();
  }

  /** How many of the renamed files' tabs hold unsaved changes (other cases leave notes.txt so). */
  const dirty = (p) => p.locator('.tabs-container .tab.dirty').filter({ hasText: /(scale|geometry)\.ts/ }).count();

  /** Shows the tab of `name` and waits until its editor shows `needle`. */
  async function bufferShows(p, name, needle) {
    await p.locator('.tabs-container .tab', { hasText: name, hasNotText: 'proposed by Ink' }).first().click();
    await p.locator('.tabs-container .tab.active', { hasText: name }).waitFor();
    await editor(p).locator('.view-lines', { hasText: needle }).waitFor({ timeout: 10000 });
  }

  /** The one review of a rename: both files' diffs open, the proposed sides renamed, one card asking. */
  async function renameReview(p, view) {
    const proposed = {
      'geometry.ts': 'return multiply(totalArea(shapes), 2);',
      'scale.ts': 'export function multiply(value: number, factor: number)',
    };
    const tabs = Object.keys(proposed).map((name) => p.locator('.tabs-container .tab', { hasText: `${name} ↔ proposed by Ink` }));
    for (const tab of tabs) {
      await tab.waitFor({ timeout: 60000 });
    }
    // every diff is open once the status bar says how to answer
    await p.locator('.statusbar-item', { hasText: 'Accept ✓ or Reject ✗' }).first().waitFor({ timeout: 20000 });
    for (const [i, [name, text]] of Object.entries(proposed).entries()) {
      await tabs[i].click();
      await p.locator('.tabs-container .tab.active', { hasText: `${name} ↔ proposed by Ink` }).waitFor();
      await p.locator('.monaco-diff-editor .modified', { hasText: text }).first().waitFor();
    }
    // one decision: the rename's card asks once, for both files
    const card = view.locator('.card', { hasText: 'lsp rename' }).last();
    await card.locator('.approval', { hasText: 'tsdemo/geometry.ts, tsdemo/scale.ts' }).waitFor({ timeout: 20000 });
    assert.equal(await view.locator('.approval button', { hasText: 'Review diff' }).count(), 1, 'more than one approval is waiting');
    return tabs;
  }

  test('intel2: implementation, workspace symbols and outgoing calls of TypeScript code from VS Code', async () => {
    const p = page();
    const view = await openPanel(p);
    const n = await send(view, '[lsp2-nav] who implements area, where is totalArea, what does demo call?');
    await answerOf(view, n, 'Tool said:');
    // each call's card shows what the model was told (the wrapper checks all of it exactly)
    const shown = {
      'lsp implementation': 'tsdemo/shapes.ts:17: area(): number {',
      'lsp workspace_symbols': 'tsdemo/geometry.ts:15: function totalArea',
      'lsp outgoing_calls': 'return scale(totalArea(shapes), 2);  (function totalArea)',
    };
    for (const [title, line] of Object.entries(shown)) {
      const card = view.locator('.card', { hasText: title }).last();
      await card.locator('.card-status', { hasText: 'done' }).waitFor();
      await card.locator('summary').click();
      await card.locator('.card-output pre', { hasText: line }).waitFor({ timeout: 10000 });
    }
  });

  test('intel2: an lsp rename across two files is one review with both diffs; Reject changes nothing', async () => {
    const p = page();
    // the user has both files open
    await openFile(p, 'tsdemo/scale.ts');
    await openFile(p, 'tsdemo/geometry.ts');
    const view = await openPanel(p);
    const before = { scale: read('tsdemo/scale.ts'), geometry: read('tsdemo/geometry.ts') };
    const n = await send(view, '[lsp2-rename-reject] rename scale to multiply');
    const tabs = await renameReview(p, view);
    await p.locator('.editor-actions a.action-label[aria-label="Reject Edit"]').click();
    for (const tab of tabs) {
      await tab.waitFor({ state: 'detached', timeout: 20000 });
    }
    const answer = await answerOf(view, n, 'Tool said:');
    assert.ok(answer.includes('rejected'), `the model was told: ${answer}`);
    assert.equal(read('tsdemo/scale.ts'), before.scale);
    assert.equal(read('tsdemo/geometry.ts'), before.geometry);
    await bufferShows(p, 'geometry.ts', 'return scale(totalArea(shapes), 2);');
    await bufferShows(p, 'scale.ts', 'export function scale(value: number, factor: number)');
    assert.equal(await dirty(p), 0, 'a buffer was left changed');
  });

  test('intel2: an lsp rename accepted once changes both open buffers and both files', async () => {
    const p = page();
    const view = await openPanel(p);
    const n = await send(view, '[lsp2-rename-accept] rename scale to multiply');
    const tabs = await renameReview(p, view);
    await p.locator('.editor-actions a.action-label[aria-label="Accept Edit"]').click();
    for (const tab of tabs) {
      await tab.waitFor({ state: 'detached', timeout: 20000 });
    }
    const answer = await answerOf(view, n, 'Tool said:');
    assert.ok(answer.includes('Renamed to multiply in 2 file(s)'), `the model was told: ${answer}`);
    // the declaration, the import and the call renamed; nothing else changed
    const renamed = {
      'tsdemo/scale.ts': TS2_FILES['tsdemo/scale.ts'].replace('function scale(', 'function multiply('),
      'tsdemo/geometry.ts': TS2_FILES['tsdemo/geometry.ts'].replace('import { scale }', 'import { multiply }').replace('return scale(', 'return multiply('),
    };
    for (const [name, text] of Object.entries(renamed)) {
      await waitForFile(path.join(workspace, name), (t) => t === text);
    }
    // the open buffers hold the rename, saved
    await bufferShows(p, 'geometry.ts', 'return multiply(totalArea(shapes), 2);');
    await bufferShows(p, 'scale.ts', 'export function multiply(value: number, factor: number)');
    assert.equal(await dirty(p), 0, 'a renamed buffer is unsaved');
  });
}

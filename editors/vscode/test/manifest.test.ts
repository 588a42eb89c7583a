import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

// out/test/ → the extension folder.
const root = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  main: string;
  contributes: {
    commands: { command: string; title: string; category: string }[];
    configuration: { properties: Record<string, { description?: string; markdownDescription?: string }> };
  };
};
const source = (file: string): string => fs.readFileSync(path.join(root, 'src', file), 'utf8');

test('the commands of issue 6 are contributed under the Ink category', () => {
  const titles = manifest.contributes.commands.map((c) => `${c.category}: ${c.title}`);
  for (const title of ['Ask…', 'Ask About Selection', 'Cancel', 'Show Log', 'New Session', 'Accept Edit', 'Reject Edit']) {
    assert.ok(titles.includes(`Ink: ${title}`), `missing Ink: ${title} in ${JSON.stringify(titles)}`);
  }
});

test('every contributed command is registered by the extension', () => {
  const extension = source('extension.ts');
  for (const { command } of manifest.contributes.commands) {
    assert.ok(extension.includes(`command('${command}'`), `${command} is not registered`);
  }
});

test('every setting has a description and is read by settings.ts', () => {
  const settings = source('settings.ts');
  for (const [key, spec] of Object.entries(manifest.contributes.configuration.properties)) {
    assert.ok((spec.description ?? spec.markdownDescription ?? '') !== '', `${key} has no description`);
    assert.ok(settings.includes(`'${key.replace(/^ink\./, '')}'`), `${key} is not read in settings.ts`);
  }
});

test('main points at the compiled extension', () => {
  assert.ok(fs.existsSync(path.join(root, manifest.main)), manifest.main);
});

test('the Ink view, its title actions and the keybindings are contributed', () => {
  const m = manifest as unknown as {
    contributes: {
      viewsContainers: { activitybar: { id: string; icon: string }[] };
      views: Record<string, { type: string; id: string }[]>;
      keybindings: { command: string; key: string }[];
      menus: Record<string, { command: string }[]>;
      commands: { command: string }[];
    };
  };
  const c = m.contributes;
  assert.equal(c.viewsContainers.activitybar[0].id, 'ink');
  assert.ok(fs.existsSync(path.join(root, c.viewsContainers.activitybar[0].icon)));
  assert.deepEqual(c.views.ink.map((v) => [v.type, v.id]), [['webview', 'ink.panel']]);
  assert.ok(source('panel.ts').includes("VIEW_ID = 'ink.panel'"));
  const commands = new Set(c.commands.map((x) => x.command));
  for (const k of c.keybindings) {
    assert.ok(commands.has(k.command), k.command);
  }
  assert.deepEqual(c.menus['view/title'].map((x) => x.command), ['ink.newSession', 'ink.sessions']);
});

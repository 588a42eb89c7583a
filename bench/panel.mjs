// The Ink panel under a long stream, in the real workbench (code-server + headless chromium),
// driven by bench/panel.py (which runs the scripted model). Prints one JSON line `RESULT {...}`:
//
// 1. Latency: a 2,000-delta answer. For every text delta, the time from its arrival at the
//    extension (the notification off the wire) to the end of the animation frame that put it in
//    the panel's DOM, read from the webview's `__inkTrace`; baseline: the extension → webview
//    transit alone (postMessage hop) of the same batches.
// 2. Responsiveness: a 5,000-line markdown answer. The gaps between requestAnimationFrame
//    callbacks in the webview while it streams, against the gaps of the idle panel measured in
//    this run for as long.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { openWorkbench, repoRoot } from '../tests/editors/vscode/harness.mjs';
import { openPanel } from '../tests/editors/vscode/panel_cases.mjs';

const workspace = process.env.INK_TEST_WORKSPACE;
const tmp = fs.mkdtempSync(path.join(process.env.INK_TEST_TMP ?? os.tmpdir(), 'bench-panel-'));
const settings = {
  'ink.serverPath': path.join(repoRoot, '.venv', 'bin', 'ink-ls'),
  'ink.model.baseUrl': process.env.INK_TEST_MODEL_URL,
  'ink.model.name': 'fake-model',
  'ink.model.apiKeyEnv': 'INK_TEST_KEY',
  'ink.approval': 'ask',
};

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** The webview's inner frame (the one that runs main.js). */
async function traceFrame(page) {
  for (;;) {
    for (const f of page.frames()) {
      if (await f.evaluate(() => typeof window.__inkTrace === 'object').catch(() => false)) {
        return f;
      }
    }
    await page.waitForTimeout(200);
  }
}

async function ask(view, prompt, outcomes) {
  const box = view.locator('textarea.prompt');
  await box.fill(prompt);
  await box.press('Enter');
  await view.locator('.entry.outcome').nth(outcomes).waitFor({ timeout: 300000 });
}

const { page, close } = await openWorkbench({ tmp, workspace, settings });
try {
  const view = await openPanel(page);
  const frame = await traceFrame(page);

  // 1. latency over a 2,000-delta answer
  await frame.evaluate(() => {
    window.__inkTrace.latencies = [];
    window.__inkTrace.transits = [];
  });
  await ask(view, '[bench-2000] stream', 0);
  const { latencies, transits } = await frame.evaluate(() => ({
    latencies: window.__inkTrace.latencies,
    transits: window.__inkTrace.transits,
  }));

  // 2. responsiveness: idle baseline, then the 5,000-line answer
  await frame.evaluate(() => window.__inkTrace.watch(true));
  await page.waitForTimeout(Number(process.env.BENCH_IDLE_MS ?? 5000));
  const idle = await frame.evaluate(() => {
    window.__inkTrace.watch(false);
    return window.__inkTrace.gaps;
  });
  await frame.evaluate(() => {
    window.__inkTrace.watch(true);
    window.__inkTrace.work = [];
  });
  const t0 = Date.now();
  await ask(view, '[bench-5000] long answer', 1);
  const streamMs = Date.now() - t0;
  const { busy, work } = await frame.evaluate(() => {
    window.__inkTrace.watch(false);
    return { busy: window.__inkTrace.gaps, work: window.__inkTrace.work };
  });
  // Still following the stream: the log is scrolled to its end.
  const atBottom = await frame.evaluate(() => {
    const log = document.querySelector('.log');
    return log.scrollHeight - log.scrollTop - log.clientHeight < 50;
  });
  const lastLine = await view.locator('.answer').last().locator('text=line 5000 of the answer').count();
  console.log(
    'RESULT ' +
      JSON.stringify({
        deltas: latencies.length,
        latencyMedianMs: pct(latencies, 50),
        latencyP95Ms: pct(latencies, 95),
        latencyMaxMs: Math.max(...latencies),
        transitMedianMs: pct(transits, 50),
        batches: transits.length,
        idleFrames: idle.length,
        idleMaxGapMs: Math.max(...idle),
        idleP99GapMs: pct(idle, 99),
        streamMs,
        streamFrames: busy.length,
        streamMaxGapMs: Math.max(...busy),
        streamP99GapMs: pct(busy, 99),
        streamGapsOver50: busy.filter((g) => g > 50).length,
        streamGapsOver100: busy.filter((g) => g > 100).length,
        lastLineShown: lastLine > 0,
        followedToEnd: atBottom,
        drawMaxMs: Math.max(...work),
        drawP99Ms: pct(work, 99),
        draws: work.length,
      }),
  );
} finally {
  await close();
}

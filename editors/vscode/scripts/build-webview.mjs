// Bundles the Ink panel's webview script (webview/main.ts with markdown-it and highlight.js)
// into out/webview/main.js, one IIFE for the browser (the webview's CSP allows only this file).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await build({
  entryPoints: [path.join(root, 'webview', 'main.ts')],
  outfile: path.join(root, 'out', 'webview', 'main.js'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: process.argv.includes('--minify'),
  sourcemap: true,
  logLevel: 'warning',
});

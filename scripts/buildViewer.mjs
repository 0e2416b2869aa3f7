#!/usr/bin/env node
// Bundles the viewer page (web/viewer/) into dist/viewer/: index.html, viewer.css and one
// viewer.js holding three.js and msgpackr, so `wmrl view` serves everything itself (no CDN,
// no network at run time). Runs on `npm install`/`npm ci` (the `prepare` script) and `npm run build`.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'web', 'viewer');
const out = join(root, 'dist', 'viewer');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(src, 'main.ts')],
  outfile: join(out, 'viewer.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  legalComments: 'eof',
  logLevel: 'warning',
});
copyFileSync(join(src, 'index.html'), join(out, 'index.html'));
copyFileSync(join(src, 'viewer.css'), join(out, 'viewer.css'));
console.log(`viewer page built in ${out}`);

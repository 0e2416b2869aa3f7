#!/usr/bin/env node
// Lines of at most 120 characters in the code (.ts/.mjs/.js under src sim test bench bin scripts
// web): Biome's formatter wraps code to that width but not comments or long strings, and Biome
// has no line-length rule. Prints `file:line: N characters` for each longer line and exits 1.
// Run by `npm run lint`. Characters are Unicode code points (the code uses ·, λ, → and the like).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAX = 120;
const ROOTS = ['src', 'sim', 'test', 'bench', 'bin', 'scripts', 'web'];
const EXTENSIONS = /\.(?:ts|mjs|js)$/;
const SKIP = new Set(['node_modules', 'dist']);

const root = join(fileURLToPath(import.meta.url), '..', '..');

function* files(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if (e.code === 'ENOENT') return;
    throw e;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP.has(e.name)) yield* files(path);
    } else if (e.isFile() && EXTENSIONS.test(e.name)) {
      yield path;
    }
  }
}

let long = 0;
let checked = 0;
for (const top of ROOTS) {
  for (const file of files(join(root, top))) {
    checked++;
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const n = [...line.replace(/\r$/, '')].length;
      if (n > MAX) {
        long++;
        console.log(`${relative(root, file)}:${i + 1}: ${n} characters`);
      }
    });
  }
}
if (long > 0) {
  console.error(`${long} lines longer than ${MAX} characters in ${checked} files`);
  process.exit(1);
}

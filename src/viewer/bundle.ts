/**
 * Where the built viewer page lives (dist/viewer/, written by scripts/buildViewer.mjs on npm install / npm run build).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUNDLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/viewer');

/** The bundle folder, or a clear error saying how to build it. */
export function requireBundle(dir = BUNDLE_DIR): string {
  if (!existsSync(join(dir, 'index.html')) || !existsSync(join(dir, 'viewer.js'))) {
    throw new Error(
      `the viewer page is not built (${dir} lacks index.html/viewer.js): ` +
        `run \`npm run build\` in the wmrl folder (npm install does it too)`,
    );
  }
  return dir;
}

/**
 * The project's import order, checked over the real import graph: a module may import only from
 * its own layer or an earlier one (so there is no cycle between folders either). Every import
 * counts — static, type-only, re-exports and dynamic `import()` — since a type-only import is a
 * dependency a reader has to follow too. docs/design.md explains the order.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** Earliest first. */
export const LAYERS = [
  'src/core',
  'src/backend',
  'src/nn',
  'src/safety',
  'src/tasks',
  'src/ros',
  'sim',
  'src/envs',
  'src/data',
  'src/operator',
  'src/vision',
  'src/policy',
  'src/worldmodel',
  'src/eval',
  'src/rl',
  'src/success',
  'src/scheduler',
  'src/viewer',
  'web',
  'src/cli',
  'bin',
  'bench',
] as const;

/** Folders whose modules are checked (test/ may import anything). */
export const CHECKED_ROOTS = ['src', 'sim', 'web', 'bin', 'bench'];

export interface Violation {
  file: string;
  line: number;
  target: string;
  why: string;
}

/** The layer of a repository-relative path, or undefined outside the checked folders. */
export function layerOf(path: string): string | undefined {
  const p = normalize(path).split('\\').join('/');
  return [...LAYERS].sort((a, b) => b.length - a.length).find((layer) => p === layer || p.startsWith(`${layer}/`));
}

const SPECIFIER = new RegExp(
  [
    /(?:^|[\s;])(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/.source,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/.source,
    /^\s*import\s+['"]([^'"]+)['"]/.source,
  ].join('|'),
  'gm',
);

/** Relative import specifiers of a module's source, with their line numbers. */
export function importsOf(source: string): { specifier: string; line: number }[] {
  const out: { specifier: string; line: number }[] = [];
  for (const m of source.matchAll(SPECIFIER)) {
    const specifier = m[1] ?? m[2] ?? m[3];
    if (specifier === undefined || !specifier.startsWith('.')) continue;
    const start = m.index + m[0].search(/\S/);
    out.push({ specifier, line: source.slice(0, start).split('\n').length });
  }
  return out;
}

/** Violations of the order among `files` (repository-relative path → source). */
export function importViolations(files: Map<string, string>): Violation[] {
  const rank = new Map<string, number>(LAYERS.map((layer, i) => [layer, i]));
  const violations: Violation[] = [];
  for (const [file, source] of files) {
    const from = layerOf(file);
    if (from === undefined) {
      violations.push({
        file,
        line: 1,
        target: '',
        why:
          `${dirname(file)} is in no layer: place the folder in ` +
          `LAYERS (test/architecture/importRules.ts) and docs/design.md`,
      });
      continue;
    }
    for (const { specifier, line } of importsOf(source)) {
      const target = normalize(join(dirname(file), specifier));
      const to = layerOf(target);
      if (to === undefined) {
        violations.push({ file, line, target, why: `imports ${target}, outside every layer` });
      } else if (rank.get(to)! > rank.get(from)!) {
        violations.push({ file, line, target, why: `${from} may not import ${to}, which comes later in LAYERS` });
      }
    }
  }
  return violations;
}

/** Every .ts/.js/.mjs module under the checked roots of `root`, by repository-relative path. */
export function repositoryModules(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'results') continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts'))
        files.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  for (const r of CHECKED_ROOTS) walk(join(root, r));
  return files;
}

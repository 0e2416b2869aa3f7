/**
 * The sizes that keep the product small enough to read and change: the training config's keys, the method's
 * switches, the training step, the benchmark's arms table and the pages a newcomer reads first; and what the generic
 * method may not know: no session of the lab record in the code, no simulator inside the learned model, no task
 * family's name in the training loop or the world model (a family's own code sits in its folder under src/tasks/).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveMethod } from '../../src/rl/config/method.ts';
import { wmrlConfigSchema } from '../../src/rl/config/wmrlConfig.ts';
import { importsOf } from './importRules.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const lines = (path: string) => readFileSync(join(root, path), 'utf8').split('\n').length - 1;

/** Every file under `dir` (repository-relative) whose name ends with one of `endings`. */
function filesUnder(dir: string, endings: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(join(root, d))) {
      const p = join(d, name);
      if (statSync(join(root, p)).isDirectory()) walk(p);
      else if (endings.some((e) => name.endsWith(e))) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The leaf keys of a zod object schema, dotted. */
function leafKeys(schema: unknown, prefix = ''): string[] {
  let inner = schema as { _zod: { def: { type: string; innerType?: unknown; shape?: Record<string, unknown> } } };
  while (inner._zod.def.innerType) inner = inner._zod.def.innerType as typeof inner;
  const { type, shape } = inner._zod.def;
  if (type !== 'object' || !shape) return [prefix];
  return Object.entries(shape).flatMap(([k, v]) => leafKeys(v, prefix ? `${prefix}.${k}` : k));
}

/** Source without its comments (line and block), so that what is tested is code and its strings. */
const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

test('sizes: config keys ≤ 60, method switches ≤ 10, the step ≤ 300 lines, the arms table ≤ 250, pages', () => {
  const keys = leafKeys(wmrlConfigSchema);
  assert.ok(keys.length <= 60, `wmrl train has ${keys.length} config keys`);
  const switches = Object.keys(resolveMethod(wmrlConfigSchema.parse({})));
  assert.ok(switches.length <= 10, `the method resolves ${switches.length} switches: ${switches.join(', ')}`);
  for (const [path, most] of [
    ['src/rl/step/trainStep.ts', 300],
    ['bench/wmrlArms.ts', 250],
    ['docs/benchmarks.md', 400],
    ['README.md', 150],
  ] as const)
    assert.ok(lines(path) <= most, `${path}: ${lines(path)} lines (at most ${most})`);
});

test('no session of the lab record is named in src/, bench/ or configs/', () => {
  const files = ['src', 'bench', 'configs'].flatMap((d) =>
    filesUnder(d, ['.ts', '.yaml']).filter((f) => !f.startsWith(join('bench', 'results'))),
  );
  assert.ok(files.length > 100, `read ${files.length} files`);
  const named = files.filter((f) => /\bsessions? \d/i.test(readFileSync(join(root, f), 'utf8')));
  assert.deepEqual(named, []);
});

test('the learned model imports nothing from the simulator', () => {
  const files = filesUnder('src/worldmodel', ['.ts']);
  const fromSim = files.flatMap((f) =>
    importsOf(readFileSync(join(root, f), 'utf8'))
      .filter((i) => relative(root, join(root, f, '..', i.specifier)).startsWith('sim'))
      .map((i) => `${f}:${i.line}: ${i.specifier}`),
  );
  assert.deepEqual(fromSim, []);
});

test('the training loop and the world model name no task family and no score rule of one', () => {
  const families = ['reach', 'pick', 'push', 'grasp'];
  const quoted = new RegExp(`['"\`](${families.join('|')})\\b`, 'g');
  const found = ['src/rl', 'src/worldmodel'].flatMap((d) =>
    filesUnder(d, ['.ts']).flatMap((f) =>
      [...withoutComments(readFileSync(join(root, f), 'utf8')).matchAll(quoted)].map((m) => `${f}: ${m[0]}`),
    ),
  );
  assert.deepEqual(found, []);
  // The check sees a quoted name in code, and not one in a comment.
  assert.equal([...withoutComments("const f = 'pick'; // reach").matchAll(quoted)].length, 1);
});

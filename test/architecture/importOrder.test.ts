import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { importsOf, importViolations, LAYERS, layerOf, repositoryModules } from './importRules.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

test(
  'imports flow one way: no module imports a later layer ' + '(core → tasks → ros → sim → envs → … → cli → bench)',
  () => {
    const files = repositoryModules(root);
    assert.ok(files.size > 150, `found only ${files.size} modules under ${root}`);
    const violations = importViolations(files);
    assert.deepEqual(
      violations.map((v) => `${v.file}:${v.line}: ${v.why}`),
      [],
    );
  },
);

test('the import check: finds every form of import and fails on a forbidden one', () => {
  const source = [
    "import type { Episode } from '../core/types.ts';",
    "import { trainStep } from '../rl/trainStep.ts';",
    "export { x } from '../scheduler/x.ts';",
    "const m = await import('../viewer/viewerServer.ts');",
    "import '../cli/main.ts';",
    "import * as tf from '@tensorflow/tfjs';",
  ].join('\n');
  assert.deepEqual(
    importsOf(source).map((i) => `${i.line}:${i.specifier}`),
    [
      '1:../core/types.ts',
      '2:../rl/trainStep.ts',
      '3:../scheduler/x.ts',
      '4:../viewer/viewerServer.ts',
      '5:../cli/main.ts',
    ],
  );
  // src/envs sits below rl, scheduler, viewer and cli: four violations, core is fine.
  const violations = importViolations(new Map([['src/envs/bad.ts', source]]));
  assert.deepEqual(
    violations.map((v) => `${v.line}:${v.target}`),
    ['2:src/rl/trainStep.ts', '3:src/scheduler/x.ts', '4:src/viewer/viewerServer.ts', '5:src/cli/main.ts'],
  );
  assert.match(violations[0]!.why, /src\/envs may not import src\/rl/);
  // sim → envs is a cycle's half (envs imports sim): refused too.
  assert.equal(importViolations(new Map([['sim/x.ts', "import { simEnv } from '../src/envs/simEnv.ts';"]])).length, 1);
  // A folder outside the order must be placed in it.
  assert.equal(layerOf('src/newthing/a.ts'), undefined);
  assert.match(importViolations(new Map([['src/newthing/a.ts', '']]))[0]!.why, /in no layer/);
});

test("the README's import order is the enforced one, layer for layer", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /A folder imports only from folders before it[\s\S]*?```\n([^`]*)```/.exec(readme)?.[1];
  assert.ok(block, 'README.md: no import-order block after "A folder imports only from folders before it"');
  const listed = block
    .split(/→|\n/)
    .map((s) => s.trim())
    .filter(Boolean);
  assert.deepEqual(
    listed,
    LAYERS.map((l) => l.split('/').at(-1)),
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../../src/core/config.ts';
import { wmrlConfigSchema } from '../../src/rl/config/wmrlConfig.ts';
import { FAMILIES } from '../../bench/benchFamilies.ts';
import { armFlags } from '../../bench/wmrlArms.ts';

const dir = join(import.meta.dirname, '..', '..', 'configs', 'train');
const preset = (name: string, overrides: string[] = []) =>
  resolveConfig(wmrlConfigSchema, { files: [join(dir, name)], overrides });

test("every training preset resolves; the quickstart is the schema's defaults: presets state how they differ", () => {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) assert.doesNotThrow(() => preset(file), file);
  assert.deepEqual(preset('quickstart.yaml'), resolveConfig(wmrlConfigSchema, {}));
  // The quickstart's values, as the benchmark measured them.
  const q = preset('quickstart.yaml');
  assert.deepEqual(
    [q.steps, q.groups, q.rolloutsPerGroup, q.anchorFraction, q.anchorEvery, q.horizon, q.score, q.ppo.std],
    [12, 32, 8, 0.03, 2, 16, 'keyframes', 0.1],
  );
  assert.deepEqual(
    [q.isotonic.minPairs, q.isotonic.refitEvery, q.isotonic.window, q.anchorWeight.halfLife, q.imaginedWeight],
    [32, 16, 2000, 16, 1],
  );
  assert.deepEqual(q.worldModel, {
    refitEvery: 2,
    refitEpochs: 2,
    refitSteps: 20,
    replayEpisodes: 64,
    endEffector: true,
    keyframes: true,
    warmupEpisodes: 16,
  });
  assert.deepEqual([q.eval.every, q.eval.episodes, q.eval.split], [4, 30, 'test']);
});

test('every family of the benchmark runs the one preset, adding nothing to it', () => {
  for (const [name, family] of Object.entries(FAMILIES)) {
    assert.equal(family.config, 'configs/train/quickstart.yaml', name);
    assert.deepEqual(family.train, [], name);
  }
  assert.deepEqual(armFlags('wmrl'), []);
  assert.deepEqual(
    readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort(),
    ['quickstart.yaml', 'real-only.yaml'],
    'no preset of one family',
  );
});

test('real-only.yaml is GRPO on the environment with 8 groups a step, the quickstart otherwise', () => {
  const real = preset('real-only.yaml');
  assert.deepEqual({ ...real, mode: 'wmrl', groups: 32 }, preset('quickstart.yaml'));
  assert.deepEqual([real.mode, real.groups], ['real', 8]);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../../src/core/config.ts';
import { wmrlConfigSchema } from '../../src/rl/config/wmrlConfig.ts';
import { resolveTrainConfig } from '../../src/cli/train.ts';
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
    [12, 32, 8, 0.03, 2, 8, 'progress', 0.1],
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
    goal: 'localised',
    object: 'none',
    goalFrom: 'auto',
    warmupEpisodes: 0,
  });
  assert.deepEqual([q.eval.every, q.eval.episodes, q.eval.split], [4, 30, 'test']);
});

test("pick.yaml is the pick benchmark's WMRL arm: the quickstart scored where the gripper first closes", () => {
  const pick = preset('pick.yaml');
  // The benchmark's pick arms start from the family's preset; its WMRL arm adds nothing to it.
  assert.equal(FAMILIES.pick!.config, 'configs/train/pick.yaml');
  assert.deepEqual([FAMILIES.pick!.train, armFlags('wmrl')], [[], []]);
  assert.deepEqual(resolveTrainConfig(['--config', join(dir, 'pick.yaml')]), pick);
  // How it differs from the quickstart: what the benchmark measured as pick's arm.
  assert.deepEqual(
    [pick.steps, pick.horizon, pick.score, pick.anchorEvery, pick.uncertaintyPenalty],
    [28, 16, 'grasp', 2, 1],
  );
  // Pick keeps the quickstart's other world-model settings (a deep merge, not a replacement).
  assert.deepEqual(pick.worldModel, {
    ...preset('quickstart.yaml').worldModel,
    goal: 'none',
    object: 'localised',
    refitEvery: 1,
  });
  assert.deepEqual(
    {
      ...pick,
      steps: 12,
      horizon: 8,
      score: 'progress',
      uncertaintyPenalty: 0,
      worldModel: preset('quickstart.yaml').worldModel,
    },
    preset('quickstart.yaml'),
    'nothing else differs',
  );
});

test('real-only.yaml is GRPO on the environment with 8 groups a step, the quickstart otherwise', () => {
  const real = preset('real-only.yaml');
  assert.deepEqual({ ...real, mode: 'wmrl', groups: 32 }, preset('quickstart.yaml'));
  assert.deepEqual([real.mode, real.groups], ['real', 8]);
});

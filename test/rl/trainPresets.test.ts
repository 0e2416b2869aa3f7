import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../../src/core/config.ts';
import { wmrlConfigSchema } from '../../src/rl/wmrlConfig.ts';
import { FAMILIES } from '../../bench/benchFamilies.ts';
import { armFlags } from '../../bench/wmrlArms.ts';

const dir = join(import.meta.dirname, '..', '..', 'configs', 'train');
const preset = (name: string, overrides: string[] = []) =>
  resolveConfig(wmrlConfigSchema, { files: [join(dir, name)], overrides });

test('every training preset resolves; pick.yaml is the quickstart the pick benchmark ran as its WMRL arm', () => {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) assert.doesNotThrow(() => preset(file), file);
  // The benchmark's pick arm scored where the gripper first closes, every group from the start pool (session 48): the
  // quickstart, the family's flags (--horizon=16 --worldModel.goal=none --anchorEvery=1), the arm's own (anchors every
  // other step among them), 28 steps.
  assert.deepEqual(FAMILIES.pick!.train, ['--horizon=16', '--worldModel.goal=none', '--anchorEvery=1']);
  const GRASP = 'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-from-starts';
  const arm = preset('quickstart.yaml', [...FAMILIES.pick!.train, ...armFlags(GRASP, GRASP), '--steps=28']);
  assert.deepEqual(preset('pick.yaml'), arm);
  assert.deepEqual([arm.score, arm.anchorEvery, arm.imaginedKlLimit, arm.branch.fraction], ['grasp', 2, undefined, 0]);
});

test("the quickstart's world model is told the localised goal, learned where the data shows it; pick's is not", () => {
  const { worldModel } = preset('quickstart.yaml');
  assert.deepEqual([worldModel.endEffector, worldModel.goal, worldModel.goalFrom], [true, 'localised', 'auto']);
  // Pick keeps the quickstart's other world-model settings (a deep merge, not a replacement).
  assert.deepEqual(preset('pick.yaml').worldModel, { ...worldModel, goal: 'none', object: 'localised', refitEvery: 1 });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ALL_ARMS,
  ON_DEMAND_ARMS,
  REAL_ONLY,
  armColour,
  armFlags,
  armIsAblation,
  armIsLong,
  armLabel,
  armRobotTimeCounted,
  armWorldModelData,
  dottedFlags,
  experiment,
  experimentNames,
  worldModelFolder,
} from '../../bench/wmrlArms.ts';
import { FAMILIES, isWorldModelData } from '../../bench/benchFamilies.ts';
import { resolveTrainConfig } from '../../src/cli/train.ts';

test('benchmark arms: one table of headline and ablation arms, short names, each its own flags', () => {
  assert.deepEqual(ALL_ARMS, [
    'real',
    'wmrl',
    'shared-wm',
    'anchors-only',
    'no-debias',
    'paper-map',
    'no-anchor-weight',
    'no-ensemble-weight',
    'no-refit',
    'wm-only',
  ]);
  assert.deepEqual(ON_DEMAND_ARMS, ['perfect-wm']);
  for (const arm of [...ALL_ARMS, ...ON_DEMAND_ARMS, ...experimentNames()]) {
    assert.ok(arm.length <= 30, `${arm}: a short name`);
    assert.ok(armLabel(arm).length > 0, arm);
    // Every flag an arm passes is a key `wmrl train` knows (resolving refuses any other).
    assert.doesNotThrow(() => resolveTrainConfig(['--config', 'configs/train/quickstart.yaml', ...armFlags(arm)]), arm);
  }
  // The family's preset is the WMRL arm: it adds nothing; an ablation takes one part away from it.
  assert.deepEqual(armFlags('wmrl'), []);
  assert.deepEqual(armFlags('no-debias'), ['--no-debias']);
  assert.ok(armIsAblation('no-debias') && !armIsAblation('wmrl') && !armIsAblation('real'));
  assert.deepEqual(armFlags('real'), REAL_ONLY);
  // The arms that spend at most one group of robot time a step run the long budget.
  assert.deepEqual(ALL_ARMS.filter(armIsLong), ['wmrl', 'shared-wm', 'anchors-only']);
  assert.equal(armColour('real'), '#d62728');
  assert.throws(() => armFlags('no-such-arm'), /no benchmark arm 'no-such-arm'.*experiments: /);
});

test('benchmark arms: the perfect-world-model ceiling runs all 32 groups and counts one group of robot time', () => {
  assert.deepEqual(armFlags('perfect-wm'), [...REAL_ONLY, '--groups=32']);
  assert.equal(armRobotTimeCounted('perfect-wm'), 1 / 32);
  for (const arm of ALL_ARMS) assert.equal(armRobotTimeCounted(arm), 1, arm);
});

test('benchmark experiments: an overlay file names the arm it changes and the keys it sets', () => {
  assert.deepEqual(experimentNames(), ['anchors-every-step', 'imagine-8']);
  assert.deepEqual(armFlags('imagine-8'), ['--groups=8', '--anchorFraction=0.1', '--worldModel.refitSteps=40']);
  assert.ok(armIsLong('imagine-8') && !armIsAblation('imagine-8'));
  assert.deepEqual(armWorldModelData('imagine-8'), [], "its base arm's: the demonstrations alone");
  assert.deepEqual(dottedFlags({ a: 1, b: { c: 'x', d: [1, 2] }, e: true }), [
    '--a=1',
    '--b.c=x',
    '--b.d=[1,2]',
    '--e=true',
  ]);
  // A file of one's own: based on another arm, its flags after that arm's; a bad file says what is wrong.
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-experiments-'));
  writeFileSync(join(dir, 'real-g2.yaml'), 'label: real-only GRPO (G = 2)\nbase: real\ntrain: { groups: 2 }\n');
  const real2 = experiment('real-g2', dir);
  assert.deepEqual(real2.flags, [...REAL_ONLY, '--groups=2']);
  assert.equal(real2.colour, undefined, "the base arm's colour is its own");
  writeFileSync(join(dir, 'bad.yaml'), 'label: x\nbase: nothing\ntrain: {}\n');
  assert.throws(() => experiment('bad', dir), /base 'nothing' is no arm of the table/);
  writeFileSync(join(dir, 'typo.yaml'), 'label: x\ntrian: {}\n');
  assert.throws(() => experiment('typo', dir), /typo\.yaml/);
});

test('benchmark arms: each world model has a cache folder of its own: whether it holds keyframes, its data', () => {
  const folder = (config: string, arm: string) =>
    worldModelFolder(resolveTrainConfig(['--config', config, ...armFlags(arm)]).worldModel, armWorldModelData(arm));
  // Every family runs the one preset; its world model holds the keyframes and learns from the demonstrations (then its
  // own episodes); so do the ablations. The shared one also learns from the noisy experts collected for it.
  for (const family of Object.values(FAMILIES)) assert.equal(family.config, 'configs/train/quickstart.yaml');
  const preset = FAMILIES.reach!.config;
  assert.equal(folder(preset, 'wmrl'), 'worldmodel-keyframes-demos-only');
  assert.equal(folder(preset, 'no-debias'), 'worldmodel-keyframes-demos-only');
  assert.equal(folder(preset, 'shared-wm'), 'worldmodel-keyframes-data-mixed');
  assert.equal(worldModelFolder({ keyframes: false }, ['mixed-reach-a']), 'worldmodel-data-mixed-reach-a');
  // Every folder an arm names is world-model data (never cloned) that every family's set-up collects.
  for (const arm of [...ALL_ARMS, ...ON_DEMAND_ARMS, ...experimentNames()])
    for (const data of armWorldModelData(arm))
      for (const family of Object.values(FAMILIES)) {
        assert.ok(isWorldModelData(data), `${arm}: ${data}`);
        assert.ok(data in family.data, `${arm}: ${data}`);
      }
  assert.ok(!isWorldModelData('demos') && !isWorldModelData('reach-demos'));
});

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { recordedObject } from '../../sim/privilegedState.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import { EndEffectorFeatures } from '../../src/worldmodel/endEffectorFeatures.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { recordedMiss, recordedNoise } from '../../src/policy/policyInputs.ts';
import { selectDemonstrations } from '../../src/policy/pretrain.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

const robot = loadRobot('vx300');
let env: SimEnv;
let features: EndEffectorFeatures;

before(async () => {
  env = await SimEnv.create({ robot });
  features = new EndEffectorFeatures(robot.name, await ArmKinematics.create(robot));
});
after(async () => {
  features.close();
  await env.close();
});

/** The gripper's distance from the block (metres) where its first finger first falls below 0.6, or null. */
function closingDistance(e: Episode): number | null {
  for (let t = 0; t <= e.steps; t++)
    if (e.qpos[t * e.qposDim + features.fingerJoint]! < 0.6) {
      const block = recordedObject(e.state, e.stateDim, t)!;
      const xyz = features.gripperAt(e, t);
      return Math.hypot(block[0]! - xyz[0]!, block[1]! - xyz[1]!, block[2]! - xyz[2]!);
    }
  return null;
}

async function closings(miss: number): Promise<{ distances: number[]; successes: number; actions: Float32Array[] }> {
  const expert = await ScriptedExpert.create({ robot, miss });
  try {
    const episodes: Episode[] = [];
    for (const p of planEpisodes([{ family: 'pick' }], 'train', 10, 3000))
      episodes.push(await runEpisode(env, expert, p));
    return {
      distances: episodes.flatMap((e) => closingDistance(e) ?? []),
      successes: episodes.filter((e) => e.success).length,
      actions: episodes.map((e) => e.actions),
    };
  } finally {
    expert.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test("the pick expert's misses close its fingers away from the block, seeded per episode", async () => {
  const expert = await closings(0);
  const missing = await closings(1);
  // The expert closes at the block (within 2 cm) and picks it; aimed off it, the fingers close centimetres away.
  assert.equal(expert.distances.length, 10);
  assert.ok(Math.max(...expert.distances) < 0.02, `expert closes at ${expert.distances.map((d) => d.toFixed(3))}`);
  assert.ok(expert.successes >= 9, `expert picked ${expert.successes}/10`);
  assert.ok(missing.distances.length >= 8, `misses closed their fingers in ${missing.distances.length}/10`);
  assert.ok(
    median(missing.distances) > median(expert.distances) + 0.015,
    `misses close at ${missing.distances.map((d) => d.toFixed(3))}`,
  );
  assert.ok(missing.successes < expert.successes, `misses picked ${missing.successes}/10`);
  // Seeded: the same episodes again act alike.
  assert.deepEqual((await closings(1)).actions, missing.actions);
});

test("the expert's name records its misses, and a share outside [0, 1] is refused", async () => {
  const both = await ScriptedExpert.create({ robot, noise: 0.3, miss: 0.5 });
  assert.equal(both.name, 'expert:noise=0.3,miss=0.5');
  both.close();
  const plain = await ScriptedExpert.create({ robot, miss: 0 });
  assert.equal(plain.name, 'expert');
  plain.close();
  await assert.rejects(ScriptedExpert.create({ robot, miss: 1.5 }), /miss share must be in \[0, 1\], got 1.5/);
});

test('behaviour cloning never clones an expert recorded with misses; its noise is read as before', () => {
  const config = resolveConfig(policyConfigSchema, {});
  const episodes = ['expert', 'expert:noise=0.1', 'expert:noise=0.1,miss=0.5', 'expert:miss=1'].map((policy, i) => ({
    ...makeTestEpisode({ id: `e${i}`, success: true, family: 'pick' }),
    policy,
  }));
  assert.deepEqual(
    selectDemonstrations(episodes, config).map((e) => e.policy),
    ['expert', 'expert:noise=0.1'],
  );
  assert.equal(recordedNoise('expert:noise=0.6,miss=1'), 0.6);
  assert.equal(recordedMiss('expert:noise=0.6,miss=1'), 1);
});

test('collect --miss: a share outside [0, 1], or misses for the random policy, are refused before any work', () => {
  const bin = fileURLToPath(new URL('../../bin/wmrl.js', import.meta.url));
  const out = join(tmpdir(), `wmrl-miss-refused-${process.pid}`);
  for (const [flags, message] of [
    [['--miss', '2'], /--miss must be a number in \[0, 1\], got '2'/],
    [
      ['--miss', '0.5', '--policy', 'random'],
      /--miss aims the scripted expert's grasps off the block; --policy is 'random'/,
    ],
  ] as const) {
    const r = spawnSync(process.execPath, [bin, 'collect', '--task', 'pick', '--out', out, ...flags], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.ok(!existsSync(out), 'nothing written');
  }
});

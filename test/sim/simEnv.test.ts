import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { Rng } from '../../src/core/rng.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { STATE_DIM } from '../../sim/privilegedState.ts';
import { RandomController } from '../../src/envs/randomController.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { NonFiniteActionError } from '../../src/envs/jointTargets.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { BUILT_IN } from '../../src/tasks/families.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import type { Observation } from '../../src/core/types.ts';

const robot = loadRobot('vx300');
let env: SimEnv;
let expert: ScriptedExpert;

before(async () => {
  env = await SimEnv.create({ robot, cameras: ['scene', 'wrist'] });
  expert = await ScriptedExpert.create({ robot });
});
after(async () => {
  expert.close();
  await env.close();
});

function assertSaneObservation(o: Observation, label: string) {
  for (const [name, img] of Object.entries(o.images)) {
    assert.equal(img.data.length, img.width * img.height * 3, `${label} ${name} size`);
    assert.equal(img.width, 64);
    const distinct = new Set<number>();
    for (let i = 0; i < img.data.length; i += 3)
      distinct.add((img.data[i]! << 16) | (img.data[i + 1]! << 8) | img.data[i + 2]!);
    assert.ok(distinct.size > 8, `${label} ${name} image is blank (${distinct.size} colours)`);
  }
  for (const arr of [o.qpos, o.qvel, o.state!])
    for (const v of arr) assert.ok(Number.isFinite(v), `${label}: non-finite observation`);
  assert.equal(o.qpos.length, robot.arm.joints.length + 1);
  assert.equal(o.state!.length, STATE_DIM);
  assert.ok(o.instruction.length > 0);
}

test('every family resets and steps for several seeds with finite, non-blank observations', async () => {
  const random = new RandomController(robot.arm.joints.length + 1);
  for (const family of BUILT_IN) {
    for (const seed of [0, 1, 2]) {
      const task = sampleTask({ family }, seed % 2 ? 'test' : 'train', new Rng(seed));
      assertSaneObservation(await env.reset({ task, seed }), `${family}/${seed} reset`);
      random.reset(task, seed);
      let last: Observation | undefined;
      for (let t = 0; t < 8; t++) {
        const r = await env.step(random.act(last ?? (await env.reset({ task, seed }))));
        assert.ok(r.reward >= 0 && r.reward <= 1, 'progress in [0,1]');
        last = r.observation;
      }
      assertSaneObservation(last!, `${family}/${seed} step`);
    }
  }
});

test('the same task and seed give bit-identical episodes', async () => {
  for (const family of BUILT_IN) {
    const [planned] = planEpisodes([{ family }], 'train', 1, 42);
    const a = await runEpisode(env, expert, { ...planned!, initialStatus: () => env.status() });
    const b = await runEpisode(env, expert, { ...planned!, initialStatus: () => env.status() });
    assert.deepEqual({ ...a, id: '', createdAt: '' }, { ...b, id: '', createdAt: '' }, family);
    const noisy = await ScriptedExpert.create({ robot, noise: 0.3 });
    try {
      const c = await runEpisode(env, noisy, planned!);
      const d = await runEpisode(env, noisy, planned!);
      assert.deepEqual(c.actions, d.actions, `${family}: noisy expert reproducible`);
      assert.notDeepEqual(c.actions, a.actions, `${family}: noise changes actions`);
    } finally {
      noisy.close();
    }
  }
});

test('scripted experts succeed on every family, on both splits', async () => {
  for (const family of BUILT_IN) {
    // 12 episodes: the pusher sometimes wedges the block between its fingers (~5%; see bench:sim).
    const plan = planEpisodes([{ family }], 'both', 12, 1000);
    let successes = 0;
    for (const p of plan) if ((await runEpisode(env, expert, p)).success) successes++;
    assert.ok(successes >= 10, `${family}: expert succeeded in ${successes}/12`);
  }
});

test('actions are clipped to the robot limits and non-finite actions are refused', async () => {
  const task = sampleTask({ family: 'reach' }, 'train', new Rng(0));
  await env.reset({ task, seed: 0 });
  const before = env.simulator.armQpos();
  // A huge action moves each joint by at most its maximum step per tick (plus tracking slack).
  const r = await env.step(new Float32Array([50, -50, 50, -50, 50, -50, 1]));
  const afterQ = r.observation.qpos;
  robot.arm.joints.forEach((j, i) =>
    assert.ok(
      Math.abs(afterQ[i]! - before[i]!) <= j.maxStep * 1.05 + 1e-3,
      `${j.name} moved ${afterQ[i]! - before[i]!}`,
    ),
  );
  await assert.rejects(env.step(new Float32Array([NaN, 0, 0, 0, 0, 0, 0])), NonFiniteActionError);
  await assert.rejects(env.step(new Float32Array([0, 0])), /needs 7/);
});

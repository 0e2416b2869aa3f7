import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { withImageSize } from '../../src/envs/makeEnv.ts';
import { RosbridgeEnv } from '../../src/envs/rosbridgeEnv.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';

const robot = withImageSize(loadRobot('vx300'), 32);

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
}

test('an expert episode in-process and through client → sim-server (lockstep) match', async () => {
  const plan = [
    ...planEpisodes([{ family: 'pick' }], 'train', 1, 7),
    ...planEpisodes([{ family: 'push' }], 'train', 1, 11),
  ];
  const expert = await ScriptedExpert.create({ robot });
  const local = await SimEnv.create({ robot });
  const server = await RosbridgeSimServer.start({ robot, port: 0, lockstep: true, heartbeatMs: 0 });
  const remote = await RosbridgeEnv.create({ robot, url: server.url, speed: Infinity });
  try {
    for (const p of plan) {
      const a: Episode = await runEpisode(local, expert, { ...p, initialStatus: () => local.status() });
      const b: Episode = await runEpisode(remote, expert, { ...p, initialStatus: () => remote.status() });
      assert.equal(b.source, 'rosbridge');
      assert.equal(b.status, 'complete');
      assert.equal(b.success, a.success, `${p.task.instruction}: same outcome`);
      assert.ok(a.success, 'the expert solves the task (so the comparison means something)');
      assert.equal(b.steps, a.steps, 'same episode length');
      // Lockstep + exact float64 JSON round trips: the trajectories are in fact bit-identical.
      assert.ok(maxAbsDiff(a.qpos, b.qpos) < 1e-6, `joint trajectories differ by ${maxAbsDiff(a.qpos, b.qpos)}`);
      assert.ok(maxAbsDiff(a.actions, b.actions) < 1e-5, 'same actions');
      assert.ok(maxAbsDiff(a.progress, b.progress) < 1e-6, 'same progress');
      assert.deepEqual(b.cameras.scene!.frames, a.cameras.scene!.frames, 'same camera frames');
    }
  } finally {
    await remote.close();
    await server.close();
    await local.close();
    expert.close();
  }
});

test('free-running (real-time pacing ×20): the same expert episode succeeds with a close trajectory', async () => {
  const [p] = planEpisodes([{ family: 'reach' }], 'train', 1, 3);
  const expert = await ScriptedExpert.create({ robot });
  const local = await SimEnv.create({ robot });
  const server = await RosbridgeSimServer.start({ robot, port: 0, speed: 20, heartbeatMs: 0, watchdogTicks: 3 });
  const remote = await RosbridgeEnv.create({ robot, url: server.url, speed: 20, compression: 'cbor' });
  try {
    const a = await runEpisode(local, expert, { ...p!, initialStatus: () => local.status() });
    const started = performance.now();
    const b = await runEpisode(remote, expert, { ...p!, initialStatus: () => remote.status() });
    const seconds = (performance.now() - started) / 1000;
    assert.ok(a.success && b.success, 'both succeed');
    // Paced: about steps / (controlHz × 20) seconds, not as fast as possible.
    assert.ok(
      seconds > (0.8 * b.steps) / (robot.controlHz * 20),
      `episode took ${seconds.toFixed(2)} s for ${b.steps} steps`,
    );
    const n = Math.min(a.qpos.length, b.qpos.length);
    assert.ok(maxAbsDiff(a.qpos.subarray(0, n), b.qpos.subarray(0, n)) < 0.25, 'trajectories stay close');
  } finally {
    await remote.close();
    await server.close();
    await local.close();
    expert.close();
  }
});

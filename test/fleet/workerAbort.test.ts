/**
 * `wmrl worker` on a rosbridge robot that faults mid-episode (a NaN in its joint states, sent as
 * JSON null): the attempt aborts naming the joint, its partial episode is kept in the worker's
 * --out marked aborted, the request goes back to the queue, and after the robot's back-off the
 * worker runs it again to completion. Needs redis-server (fails, saying how to install it).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { savePolicy } from '../../src/policy/policyFiles.ts';
import { Tokenizer } from '../../src/policy/tokenizer.ts';
import { VlaPolicy } from '../../src/policy/vlaPolicy.ts';
import { requestId } from '../../src/scheduler/episodeRequest.ts';
import { RedisQueue } from '../../src/scheduler/redisQueue.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';
import { requireRedisServer, startRedis } from './redisServer.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-worker-abort-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a worker whose robot faults mid-episode keeps the partial episode and reruns the request', async () => {
  requireRedisServer();
  const robot = loadRobot('vx300');
  await selectBackend('cpu', { requiredKernels: POLICY_KERNELS, log: () => {} });
  const [start] = planEpisodes([{ family: 'push' }], 'train', 1, 5);
  const config = resolveConfig(policyConfigSchema, { files: ['configs/policy/tiny.yaml'], overrides: { seed: '2' } });
  const P = 2 * (robot.arm.joints.length + 1);
  const policy = new VlaPolicy(config, {
    actionDim: robot.arm.joints.length + 1,
    proprioDim: P,
    tokenizer: Tokenizer.fromTexts([start!.task.instruction], config.maxTokens).toJSON(),
    proprio: { mean: new Array(P).fill(0), std: new Array(P).fill(1) },
  });
  const policyDir = join(dir, 'policy');
  await savePolicy(policy, policyDir);
  policy.dispose();
  const redis = await startRedis();
  // A free-running robot at 5× real time: 20 ms per step.
  const server = await RosbridgeSimServer.start({ robot, port: 0, speed: 5, heartbeatMs: 0 });
  const pool = join(dir, 'robots.json');
  writeFileSync(
    pool,
    JSON.stringify({ robots: [{ name: 'arm1', kind: 'rosbridge', url: server.url, speed: 5, backoffSeconds: 0.5 }] }),
  );
  const id = requestId('abort', 1, 0, 0);
  const queue = await RedisQueue.open({ url: redis.url });
  try {
    await queue.enqueue([
      {
        id,
        run: 'abort',
        step: 1,
        group: 0,
        rollout: 0,
        task: start!.task,
        seed: start!.seed,
        noiseSeed: 1,
        maxRobotSeconds: 10,
        policy: resolve(policyDir),
      },
    ]);
    const out = join(dir, 'aborted');
    const worker = spawn(
      process.execPath,
      [
        resolve('bin/wmrl.js'),
        'worker',
        ...['--queue', redis.url, '--robot-name', 'arm1', '--pool', pool, '--out', out],
        ...['--backend', 'cpu', '--max-episodes', '1', '--idle-exit', '120'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    worker.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((done) => worker.on('exit', (code) => done(code)));
    // Once the robot is reset to the request's scene, a joint goes NaN a few steps in; then it recovers.
    const deadline = Date.now() + 60_000;
    while (!isDeepStrictEqual(server.task, start!.task) && Date.now() < deadline) await sleep(5);
    assert.ok(Date.now() < deadline, `the worker never reset the robot: ${log}`);
    // A step is three messages from the worker (gripper and arm commands, task status): wait for three steps.
    const before = server.stats.messages;
    while (server.stats.messages < before + 9 && Date.now() < deadline) await sleep(5);
    server.testFaults.jointPosition = { joint: 'wrist_angle', value: NaN };
    while ((await queue.get(id))?.attempts === 0 && Date.now() < deadline) await sleep(20);
    server.testFaults.jointPosition = undefined;
    assert.equal(await exited, 0, log);
    assert.match(log, /\/joint_states: joint 'wrist_angle' position is null \(NaN on the robot\?\)/);
    assert.match(log, /the partial episode is kept in .*aborted, marked aborted/);
    const rec = await queue.get(id);
    assert.equal(rec?.state, 'done', `the request ran again and completed: ${log}`);
    assert.equal(rec?.attempts, 1);
    const kept: Episode[] = [];
    for await (const e of (await EpisodeStore.open(out)).episodes({ includeAborted: true })) kept.push(e);
    assert.equal(kept.length, 1);
    assert.equal(kept[0]!.status, 'aborted');
    assert.equal(kept[0]!.seed, start!.seed);
    assert.ok(kept[0]!.steps >= 2, `${kept[0]!.steps} steps before the fault`);
  } finally {
    await queue.close();
    await server.close();
    await redis.stop();
  }
});

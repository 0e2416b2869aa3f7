/**
 * A real robot drop: one pool robot is a `wmrl sim-server` over rosbridge, SIGKILLed in the middle
 * of its first episode. That episode must be retried on the other robot (never dropped, never
 * stored twice) and the dropped robot marked unhealthy, with the error kept for `schedule status`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode, Observation, TaskSpec } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import type { Controller } from '../../src/core/controller.ts';
import type { Env } from '../../src/envs/env.ts';
import { makeSimEnv, withImageSize } from '../../src/envs/makeEnv.ts';
import { RosbridgeEnv } from '../../src/envs/rosbridgeEnv.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { CalibrationScheduler, checkLedger } from '../../src/scheduler/calibrationScheduler.ts';
import { requestId, type EpisodeRequest } from '../../src/scheduler/episodeRequest.ts';
import { robotConfigSchema } from '../../src/scheduler/robotConfig.ts';
import { RobotPool } from '../../src/scheduler/robotPool.ts';
import { SqliteQueue } from '../../src/scheduler/sqliteQueue.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { startSimServerProcess } from '../../sim/rosbridge/simServerProcess.ts';

const robot = withImageSize(loadRobot('vx300'), 16);
const dir = mkdtempSync(join(tmpdir(), 'wmrl-drop-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A lockstep robot with 16×16 frames on `port` (0: a free one). */
const startServer = (port = 0) =>
  startSimServerProcess(['--lockstep', '--image-size', '16', '--heartbeat-ms', '0', '--quiet', '--port', String(port)]);

/** The expert, calling `hook` at step 3 of every episode. */
class HookedExpert implements Controller {
  readonly name = 'expert';
  #step = 0;
  constructor(
    private readonly inner: ScriptedExpert,
    private readonly hook: () => void,
  ) {}
  reset(task: TaskSpec, seed: number): void {
    this.#step = 0;
    this.inner.reset(task, seed);
  }
  act(o: Observation): Float32Array {
    if (this.#step++ === 3) this.hook();
    return this.inner.act(o);
  }
}

test(
  'a robot that drops mid-episode: the episode is ' + 'retried on another robot, the robot marked unhealthy',
  async () => {
    const server = await startServer();
    let killed = false;
    const experts = new Map<Env, HookedExpert>();
    const inner: ScriptedExpert[] = [];
    const queue = SqliteQueue.open(join(dir, 'schedule.db'));
    let remoteEnv: RosbridgeEnv | undefined;
    const pool = new RobotPool([
      {
        config: robotConfigSchema.parse({
          name: 'arm-remote',
          kind: 'rosbridge',
          url: `ws://127.0.0.1:${server.port}`,
          speed: 'max',
          backoffSeconds: 600,
        }),
        open: async () =>
          (remoteEnv = await RosbridgeEnv.create({
            robot,
            url: `ws://127.0.0.1:${server.port}`,
            speed: Infinity,
            // Generous: the in-process robot's episodes keep this event loop busy while it connects.
            connectTimeoutMs: 30_000,
            maxBackoffMs: 200,
          })),
      },
      {
        config: robotConfigSchema.parse({ name: 'arm-local', kind: 'sim', speed: 'max' }),
        open: () => makeSimEnv(robot),
      },
    ]);
    const requests: EpisodeRequest[] = planEpisodes([{ family: 'reach' }], 'train', 3, 60).map((p, i) => ({
      id: requestId('drop', 1, i, 0),
      run: 'drop',
      step: 1,
      group: i,
      rollout: 0,
      task: p.task,
      seed: p.seed,
      noiseSeed: i,
      maxRobotSeconds: 10,
    }));
    const events: string[] = [];
    const scheduler = new CalibrationScheduler({
      queue,
      pool,
      storeDir: join(dir, 'anchors'),
      robot: robot.name,
      pollMs: 20,
      onEvent: (e) => events.push(`${e.kind} ${e.id} ${'robot' in e ? e.robot : ''}`),
      runEpisode: async (env, r) => {
        if (!experts.has(env)) {
          const onRemote = env === remoteEnv;
          const expert = await ScriptedExpert.create({ robot });
          inner.push(expert);
          experts.set(
            env,
            new HookedExpert(expert, () => {
              // The robot's rosbridge server dies in the middle of the remote robot's first episode.
              if (onRemote && !killed) (killed = true), server.child.kill('SIGKILL');
            }),
          );
        }
        return runEpisode(env, experts.get(env)!, { task: r.task, seed: r.seed });
      },
    });
    try {
      const result = await scheduler.request(requests);
      assert.ok(killed, `the server was killed mid-episode; events: ${events.join('; ')}`);
      assert.equal(result.episodes.size, 3, 'every episode done');
      assert.deepEqual(result.failed, []);
      const retried = events.find((e) => e.startsWith('retry'));
      assert.ok(retried?.endsWith('arm-remote'), events.join('\n'));
      const id = retried!.split(' ')[1]!;
      const rec = await queue.get(id);
      assert.equal(rec?.state, 'done');
      assert.equal(rec?.robot, 'arm-local', 'the dropped episode ran again on the other robot');
      assert.equal(rec?.attempts, 1);
      assert.deepEqual(rec?.failedOn, ['arm-remote']);
      const remote = pool.slots[0]!;
      assert.equal(remote.health.healthy, false);
      assert.match(remote.health.lastError ?? '', /abort|connection|closed/i);
      const status = await queue.summary();
      assert.equal(status.robots['arm-remote']?.health?.healthy, false);
      assert.equal(status.robots['arm-local']?.episodes, 3);
      assert.deepEqual(await checkLedger(queue, await scheduler.storedEpisodes()), {
        charged: 3,
        stored: 3,
        unchargedStored: [],
        chargedMissing: [],
      });
      // The dropped attempt's partial episode is kept, marked aborted; it is never served.
      const all: Episode[] = [];
      for await (const e of (await EpisodeStore.open(join(dir, 'anchors'))).episodes({ includeAborted: true }))
        all.push(e);
      const aborted = all.filter((e) => e.status === 'aborted');
      assert.equal(aborted.length, 1);
      // At least the steps before the kill (a dying server may still answer the step it was killed in).
      assert.ok(aborted[0]!.steps >= 3, `${aborted[0]!.steps} steps`);
      assert.equal(aborted[0]!.seed, rec!.request.seed);
      assert.ok(![...(await scheduler.storedEpisodes()).keys()].includes(aborted[0]!.id));
    } finally {
      for (const e of inner) e.close();
      await pool.close();
      await queue.close();
      server.child.kill('SIGKILL');
    }
  },
);

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode, Observation, TaskSpec } from '../../src/core/types.ts';
import { collectEpisodes } from '../../src/data/collectEpisodes.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import type { Controller } from '../../src/core/controller.ts';
import { withImageSize } from '../../src/envs/makeEnv.ts';
import { RosbridgeEnv } from '../../src/envs/rosbridgeEnv.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { startSimServerProcess } from '../../sim/rosbridge/simServerProcess.ts';

const robot = withImageSize(loadRobot('vx300'), 16);

/** A lockstep robot with 16×16 frames on `port` (0: a free one). */
const startServer = (port = 0) =>
  startSimServerProcess(['--lockstep', '--image-size', '16', '--heartbeat-ms', '0', '--quiet', '--port', String(port)]);

/** The expert, plus a hook that fires at one step of one episode. */
class KillingExpert implements Controller {
  readonly name = 'expert';
  #inner: ScriptedExpert;
  #episode = -1;
  #step = 0;
  #at: { episode: number; step: number; run: () => void };
  constructor(inner: ScriptedExpert, at: { episode: number; step: number; run: () => void }) {
    this.#inner = inner;
    this.#at = at;
  }
  reset(task: TaskSpec, seed: number): void {
    this.#episode++;
    this.#step = 0;
    this.#inner.reset(task, seed);
  }
  act(observation: Observation): Float32Array {
    if (this.#episode === this.#at.episode && this.#step === this.#at.step) this.#at.run();
    this.#step++;
    return this.#inner.act(observation);
  }
}

test(
  'kill the sim-server mid-episode: that episode is aborted, ' +
    'earlier ones intact, the client reconnects and goes on',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wmrl-rosbridge-kill-'));
    let server = await startServer(0);
    const port = server.port;
    let restarted: Promise<void> | undefined;
    const expert = await ScriptedExpert.create({ robot });
    const env = await RosbridgeEnv.create({
      robot,
      url: `ws://127.0.0.1:${port}`,
      speed: Infinity,
      connectTimeoutMs: 60_000,
      maxBackoffMs: 500,
    });
    const controller = new KillingExpert(expert, {
      episode: 1,
      step: 3,
      run: () => {
        server.child.kill('SIGKILL');
        restarted = (async () => {
          await new Promise((r) => server.child.once('exit', r));
          server = await startServer(port);
        })();
      },
    });
    const store = await EpisodeStore.openForAppend(dir, { robot: robot.name });
    const complete: Episode[] = [];
    const aborts: string[] = [];
    try {
      const plan = planEpisodes([{ family: 'reach' }], 'train', 3, 40);
      const result = await collectEpisodes({
        env,
        controller,
        store,
        plan,
        initialStatus: () => env.status(),
        onEpisode: (e) => complete.push(e),
        onAbort: (e) => aborts.push(e.message),
      });
      await restarted;
      assert.equal(result.episodes, 3, 'every planned episode completed (the aborted one ran again)');
      assert.equal(result.aborted, 1);
      assert.match(aborts[0]!, /episode aborted: .*never stored as complete/);
      assert.ok(env.connected, 'reconnected to the restarted server');
    } finally {
      await store.close();
      await env.close();
      expert.close();
      server.child.kill('SIGKILL');
    }
    try {
      const reopened = await EpisodeStore.open(dir);
      const served: Episode[] = [];
      for await (const e of reopened.episodes()) served.push(e);
      const all: Episode[] = [];
      for await (const e of reopened.episodes({ includeAborted: true })) all.push(e);
      assert.equal(served.length, 3, 'training reads only the complete episodes');
      assert.ok(served.every((e) => e.status === 'complete' && e.source === 'rosbridge'));
      assert.equal(all.length, 4);
      const aborted = all.filter((e) => e.status === 'aborted');
      assert.equal(aborted.length, 1);
      assert.equal(aborted[0]!.steps, 3, 'the aborted episode holds the steps before the kill');
      assert.equal(aborted[0]!.seed, 41);
      // Order on disk: episode 0, the aborted attempt of episode 1, episode 1 again, episode 2.
      assert.deepEqual(
        all.map((e) => [e.seed, e.status]),
        [
          [40, 'complete'],
          [41, 'aborted'],
          [41, 'complete'],
          [42, 'complete'],
        ],
      );
      // The episode before the kill is intact, byte for byte.
      assert.equal(served[0]!.id, complete[0]!.id);
      assert.deepEqual(served[0]!.qpos, complete[0]!.qpos);
      assert.deepEqual(served[0]!.cameras.scene!.frames, complete[0]!.cameras.scene!.frames);
      assert.ok(served[0]!.success && served[2]!.success, 'episodes before and after the restart succeed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

/**
 * A robot that fails mid-episode, against the real websocket sim server: its rosbridge killed and
 * restarted, its task-status or reset service failing ("Unable to communicate with service", as a
 * real rosbridge answers once the node behind it died), its publishers silent, a NaN in its joint
 * states (JSON null, as ROS 1's rosbridge sends it). Each aborts the episode at once, naming the
 * real cause; the partial episode is stored marked aborted (never served for training); the
 * client waits for the robot and runs the same episode again; retries are bounded.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode, Observation, TaskSpec } from '../../src/core/types.ts';
import type { Controller } from '../../src/core/controller.ts';
import { collectEpisodes } from '../../src/data/collectEpisodes.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import type { AbortFault, EpisodeAbortedError } from '../../src/envs/env.ts';
import { withImageSize } from '../../src/envs/makeEnv.ts';
import { RosbridgeEnv, type RosbridgeEnvOptions } from '../../src/envs/rosbridgeEnv.ts';
import { BadMeasurementError, finiteMeasurement } from '../../src/envs/rosbridgeReaders.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';
import { startSimServerProcess } from '../../sim/rosbridge/simServerProcess.ts';

const robot = withImageSize(loadRobot('vx300'), 16);
const { reset: RESET, taskStatus: STATUS } = robot.ros.services;
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The expert, with a hook that fires once, at one step of the first episode. */
class HookedExpert implements Controller {
  readonly name = 'expert';
  #episode = -1;
  #step = 0;
  constructor(
    private readonly inner: ScriptedExpert,
    private readonly at: { step: number; run: () => void },
  ) {}
  reset(task: TaskSpec, seed: number): void {
    this.#episode++;
    this.#step = 0;
    this.inner.reset(task, seed);
  }
  act(observation: Observation): Float32Array {
    if (this.#episode === 0 && this.#step === this.at.step) this.at.run();
    this.#step++;
    return this.inner.act(observation);
  }
}

interface Abort {
  fault: AbortFault;
  message: string;
  /** ms from the injected fault to the abort. */
  afterMs: number;
  steps: number | undefined;
}

/**
 * Collect `episodes` reach episodes from `url` with the expert; `fault` fires at step 3 of the
 * first one, `onAbort` sees each aborted attempt (number from 1). Returns what was stored.
 */
async function collectWithFault(o: {
  url: string;
  env?: Partial<RosbridgeEnvOptions>;
  episodes?: number;
  fault: () => void;
  onAbort?: (n: number) => void;
  maxConsecutiveAborts?: number;
}) {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-faults-'));
  dirs.push(dir);
  const expert = await ScriptedExpert.create({ robot });
  const env = await RosbridgeEnv.create({ robot, url: o.url, speed: Infinity, maxBackoffMs: 200, ...o.env });
  const store = await EpisodeStore.openForAppend(dir, { robot: robot.name });
  let faultAt = 0;
  const aborts: Abort[] = [];
  const controller = new HookedExpert(expert, {
    step: 3,
    run: () => {
      faultAt = performance.now();
      o.fault();
    },
  });
  let result: { episodes: number; aborted: number } | undefined;
  let error: Error | undefined;
  try {
    result = await collectEpisodes({
      env,
      controller,
      store,
      plan: planEpisodes([{ family: 'reach' }], 'train', o.episodes ?? 2, 70),
      initialStatus: () => env.status(),
      ...(o.maxConsecutiveAborts ? { maxConsecutiveAborts: o.maxConsecutiveAborts } : {}),
      onAbort: (err: EpisodeAbortedError) => {
        aborts.push({
          fault: err.fault,
          message: err.message,
          afterMs: performance.now() - faultAt,
          steps: err.episode?.steps,
        });
        o.onAbort?.(aborts.length);
      },
    });
  } catch (err) {
    error = err as Error;
  } finally {
    await store.close();
    await env.close();
    expert.close();
  }
  const stored: Episode[] = [];
  const served: Episode[] = [];
  const reopened = await EpisodeStore.open(dir);
  for await (const e of reopened.episodes({ includeAborted: true })) stored.push(e);
  for await (const e of reopened.episodes()) served.push(e);
  return { result, error, aborts, stored, served };
}

/** The stored attempts as [seed, status, steps of an aborted one]. */
const attempts = (stored: Episode[]) =>
  stored.map((e) => [e.seed, e.status, ...(e.status === 'aborted' ? [e.steps] : [])]);

test(
  'rosbridge killed (SIGKILL) mid-episode: the abort names the lost connection, the partial ' +
    'episode is stored aborted, and the episode runs again once the restarted robot answers',
  async () => {
    const args = ['--speed', '2', '--image-size', '16', '--heartbeat-ms', '0', '--quiet'];
    let server = await startSimServerProcess([...args, '--port', '0']);
    const port = server.port;
    let restarted: Promise<void> | undefined;
    try {
      const r = await collectWithFault({
        url: server.url,
        // A drop missed by the client would show as this long wait for fresh messages.
        env: { speed: 2, stepTimeoutMs: 10_000, connectTimeoutMs: 60_000 },
        episodes: 1,
        fault: () => {
          server.child.kill('SIGKILL');
          restarted = (async () => {
            await new Promise((done) => server.child.once('exit', done));
            server = await startSimServerProcess([...args, '--port', String(port)]);
          })();
        },
      });
      await restarted;
      assert.equal(r.error, undefined, r.error?.message);
      assert.equal(r.result!.episodes, 1);
      assert.equal(r.result!.aborted, 1);
      const [abort] = r.aborts;
      assert.equal(abort!.fault, 'connection-lost');
      assert.match(abort!.message, /episode aborted: lost the connection to the robot/);
      // From the kill: the process's exit (its socket closes last), then the client notices at once.
      assert.ok(abort!.afterMs < 1500, `aborted ${abort!.afterMs.toFixed(0)} ms after the kill`);
      // The steps before the kill, or one more: a dying server may still answer the step it was killed in.
      assert.deepEqual(
        r.stored.map((e) => [e.seed, e.status]),
        [
          [70, 'aborted'],
          [70, 'complete'],
        ],
      );
      assert.ok([3, 4].includes(r.stored[0]!.steps), `${r.stored[0]!.steps} steps`);
      assert.deepEqual(
        r.served.map((e) => e.seed),
        [70],
        'training reads only the complete episode',
      );
    } finally {
      server.child.kill('SIGKILL');
    }
  },
);

test('a drop during the control-period sleep aborts at once, not at the end of the period', async () => {
  // A slow robot (a 1 s control period): the server closes every socket while the client sleeps.
  const speed = 0.1;
  const period = 1000 / robot.controlHz / speed;
  const server = await RosbridgeSimServer.start({ robot, port: 0, speed, heartbeatMs: 0 });
  const env = await RosbridgeEnv.create({ robot, url: server.url, speed, stepTimeoutMs: 10_000, maxBackoffMs: 200 });
  try {
    const [planned] = planEpisodes([{ family: 'reach' }], 'train', 1, 70);
    await env.reset(planned!);
    await env.step(new Float32Array(7));
    let droppedAt = 0;
    const drop = setTimeout(() => {
      droppedAt = performance.now();
      void server.close();
    }, 100);
    const started = performance.now();
    const error = await env.step(new Float32Array(7)).then(
      () => assert.fail('the step after the drop must abort'),
      (err: unknown) => err as EpisodeAbortedError,
    );
    const abortedAt = performance.now();
    clearTimeout(drop);
    assert.equal(error.name, 'EpisodeAbortedError');
    assert.equal(error.fault, 'connection-lost');
    assert.match(error.message, /lost the connection to the robot/);
    assert.ok(droppedAt > 0, 'the drop came during the step');
    const late = abortedAt - droppedAt;
    assert.ok(
      late < period / 2 && abortedAt - started < period,
      `aborted ${late.toFixed(0)} ms after the drop, ${(abortedAt - started).toFixed(0)} ms into a ${period} ms period`,
    );
  } finally {
    await env.close();
    await server.close();
  }
});

test(
  "a failed service mid-episode (the robot's node died): task status, then reset; " +
    'each aborts at once naming the service, and the episode runs again when it answers',
  async () => {
    const server = await RosbridgeSimServer.start({ robot, port: 0, speed: 2, heartbeatMs: 0 });
    const period = 1000 / robot.controlHz / 2;
    try {
      const r = await collectWithFault({
        url: server.url,
        env: { speed: 2 },
        fault: () => (server.testFaults.failService = STATUS.name),
        onAbort: (n) => {
          // The first rerun's reset fails too (the node is still down); then it is back.
          if (n === 1) server.testFaults.failService = RESET.name;
          else server.testFaults.failService = undefined;
        },
      });
      assert.equal(r.error, undefined, r.error?.message);
      assert.equal(r.result!.episodes, 2);
      assert.equal(r.result!.aborted, 2);
      const [status, reset] = r.aborts;
      assert.equal(status!.fault, 'service-failed');
      assert.ok(
        status!.message.includes(
          'episode aborted: service /wmrl/task_status failed: Unable to communicate with service [/wmrl/task_status]',
        ),
        status!.message,
      );
      // In the step of the failure: its command, control period and fresh messages, then the failing
      // status call (slack for a loaded machine; a silent-robot timeout would be 2 s).
      assert.ok(status!.afterMs < period + 1000, `aborted ${status!.afterMs.toFixed(0)} ms after the failure`);
      assert.equal(reset!.fault, 'service-failed');
      assert.match(reset!.message, /service \/wmrl\/reset_episode failed: Unable to communicate/);
      assert.equal(reset!.steps, undefined, 'a failed reset recorded nothing');
      assert.deepEqual(attempts(r.stored), [
        [70, 'aborted', 3],
        [70, 'complete'],
        [71, 'complete'],
      ]);
    } finally {
      await server.close();
    }
  },
);

test('a robot that stops publishing: the abort says the robot went silent, after stepTimeoutMs', async () => {
  const server = await RosbridgeSimServer.start({ robot, port: 0, lockstep: true, heartbeatMs: 0 });
  try {
    const r = await collectWithFault({
      url: server.url,
      env: { stepTimeoutMs: 300 },
      episodes: 1,
      fault: () => (server.testFaults.silent = true),
      onAbort: () => (server.testFaults.silent = false),
    });
    assert.equal(r.error, undefined, r.error?.message);
    const [abort] = r.aborts;
    assert.equal(abort!.fault, 'robot-silent');
    assert.match(abort!.message, /the robot went silent: no fresh message on \/joint_states, .* within 0\.3 s/);
    // The step timeout, not sooner (slack for a loaded machine).
    assert.ok(abort!.afterMs >= 290 && abort!.afterMs < 300 + 1000, `${abort!.afterMs.toFixed(0)} ms`);
    assert.deepEqual(attempts(r.stored), [
      [70, 'aborted', 3],
      [70, 'complete'],
    ]);
  } finally {
    await server.close();
  }
});

test("a NaN joint position (JSON null, ROS 1's rosbridge): the abort names the topic and the joint", async () => {
  const server = await RosbridgeSimServer.start({ robot, port: 0, lockstep: true, heartbeatMs: 0 });
  try {
    const r = await collectWithFault({
      url: server.url,
      episodes: 1,
      fault: () => (server.testFaults.jointPosition = { joint: 'wrist_angle', value: NaN }),
      onAbort: () => (server.testFaults.jointPosition = undefined),
    });
    assert.equal(r.error, undefined, r.error?.message);
    const [abort] = r.aborts;
    assert.equal(abort!.fault, 'bad-value');
    assert.match(abort!.message, /\/joint_states: joint 'wrist_angle' position is null \(NaN on the robot\?\)/);
    assert.deepEqual(attempts(r.stored), [
      [70, 'aborted', 3],
      [70, 'complete'],
    ]);
  } finally {
    await server.close();
  }
  // A NaN or an infinity that arrives as a number (CBOR, a tolerant JSON reader) is named too.
  assert.throws(() => finiteMeasurement(NaN, '/joint_states', "joint 'waist' position"), BadMeasurementError);
  assert.throws(
    () => finiteMeasurement(-Infinity, '/joint_states', "joint 'waist' velocity"),
    /\/joint_states: joint 'waist' velocity is -Infinity/,
  );
});

test('a fault shorter than the pause before a rerun costs one attempt, not all three', async () => {
  const server = await RosbridgeSimServer.start({ robot, port: 0, lockstep: true, heartbeatMs: 0 });
  try {
    // A half-second burst of bad joint values, once. The services answer at once, so without the
    // pause (rerunDelayMs, 1 s) every rerun would start inside the burst.
    let fired = false;
    const burst = await collectWithFault({
      url: server.url,
      fault: () => {
        if (fired) return;
        fired = true;
        server.testFaults.jointPosition = { joint: 'elbow', value: Number.NaN };
        setTimeout(() => (server.testFaults.jointPosition = undefined), 500);
      },
    });
    assert.equal(burst.error, undefined, burst.error?.message);
    assert.equal(burst.aborts.length, 1, JSON.stringify(burst.aborts));
    assert.equal(burst.aborts[0]!.fault, 'bad-value');
    assert.equal(burst.result?.episodes, 2);
  } finally {
    await server.close();
  }
});

test(
  'retries are bounded: a fault that stays ends the command with a clear message; ' +
    'a robot that does not come back, too',
  async () => {
    const server = await RosbridgeSimServer.start({ robot, port: 0, lockstep: true, heartbeatMs: 0 });
    try {
      // Every attempt meets the bad value (the services answer, so each rerun starts at once).
      const stuck = await collectWithFault({
        url: server.url,
        fault: () => (server.testFaults.jointPosition = { joint: 'elbow', value: Infinity }),
      });
      assert.equal(stuck.aborts.length, 3);
      const message = stuck.error?.message ?? '';
      assert.ok(message.startsWith('episode 0 (seed 70) aborted 3 times in a row; last: episode aborted: '), message);
      assert.match(message, /\/joint_states: joint 'elbow' position is null/);
      assert.ok(message.endsWith('Every earlier episode is stored.'), message);
      server.testFaults.jointPosition = undefined;
      // The task-status service stays down: the wait for the robot ends, and says so.
      const gone = await collectWithFault({
        url: server.url,
        env: { connectTimeoutMs: 800 },
        fault: () => (server.testFaults.failService = STATUS.name),
      });
      assert.equal(gone.aborts.length, 1);
      const waited = gone.error?.message ?? '';
      assert.match(waited, /^episode 0 \(seed 70\) aborted \(.*\/wmrl\/task_status failed.*\), and then /s);
      assert.match(
        waited,
        /the robot at ws:\/\/127\.0\.0\.1:\d+ did not answer again within 0\.8 s \(last: service \/wmrl\/task_status/,
      );
      assert.deepEqual(attempts(gone.stored), [[70, 'aborted', 3]], 'the partial episode is kept');
    } finally {
      await server.close();
    }
  },
);

/**
 * A training run's anchor rollout that aborts (a robot fault): its partial episode goes to the
 * run's anchors/ marked aborted, the runner waits for the robot, and the rollout runs again with
 * the same exploration noise, so it is the very episode an unbroken run would have recorded.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Action, Episode, Observation, StepResult } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { EpisodeAbortedError, type Env, type ResetOptions } from '../../src/envs/env.ts';
import { withImageSize } from '../../src/envs/makeEnv.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { Tokenizer } from '../../src/policy/tokenizer.ts';
import { VlaPolicy } from '../../src/policy/vlaPolicy.ts';
import { envAnchorRunner } from '../../src/rl/run/anchorRunner.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-anchor-reruns-'));
before(() => selectBackend('cpu', { requiredKernels: POLICY_KERNELS, log: () => {} }));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The simulator, whose connection "drops" at step 2 of its first episode; it counts the waits for it. */
class FlakyEnv implements Env {
  episodes = 0;
  waits = 0;
  #t = 0;
  constructor(private readonly inner: SimEnv) {}
  get robot() {
    return this.inner.robot;
  }
  get source() {
    return this.inner.source;
  }
  get horizon() {
    return this.inner.horizon;
  }
  reset(options: ResetOptions): Promise<Observation> {
    this.episodes++;
    this.#t = 0;
    return this.inner.reset(options);
  }
  async step(action: Action): Promise<StepResult> {
    if (this.episodes === 1 && ++this.#t === 2)
      throw new EpisodeAbortedError('episode aborted: lost the connection to the robot (test)', 'connection-lost');
    return this.inner.step(action);
  }
  async waitForRobot(): Promise<void> {
    this.waits++;
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

test('an aborted anchor rollout is stored aborted and runs again with the same noise', async () => {
  const robot = withImageSize(loadRobot('vx300'), 16);
  const config = resolveConfig(policyConfigSchema, {
    files: ['configs/policy/tiny.yaml'],
    overrides: { 'encoder.imageSize': '16', seed: '4' },
  });
  const P = 2 * (robot.arm.joints.length + 1);
  const [start] = planEpisodes([{ family: 'reach' }], 'train', 1, 90);
  const policy = new VlaPolicy(config, {
    actionDim: robot.arm.joints.length + 1,
    proprioDim: P,
    tokenizer: Tokenizer.fromTexts([start!.task.instruction], config.maxTokens).toJSON(),
    proprio: { mean: new Array(P).fill(0), std: new Array(P).fill(1) },
  });
  const request = {
    step: 1,
    groups: [{ slot: 0, spec: start! }],
    rollouts: 2,
    noise: { seed: 11, correlation: 0 },
    policy,
  };
  const run = async (env: Env, storeDir: string): Promise<Episode[]> => envAnchorRunner(env, storeDir).run(request);
  try {
    const flaky = new FlakyEnv(await SimEnv.create({ robot }));
    const anchors = join(dir, 'flaky');
    let episodes: Episode[];
    try {
      episodes = await run(flaky, anchors);
    } finally {
      await flaky.close();
    }
    assert.equal(episodes.length, 2);
    assert.equal(flaky.waits, 1, 'waited for the robot once, after the abort');
    assert.equal(flaky.episodes, 3, 'two rollouts, one of them run twice');
    const all: Episode[] = [];
    for await (const e of (await EpisodeStore.open(anchors)).episodes({ includeAborted: true })) all.push(e);
    assert.deepEqual(
      all.map((e) => [e.status, e.steps]),
      [
        ['aborted', 1],
        ['complete', episodes[0]!.steps],
        ['complete', episodes[1]!.steps],
      ],
    );
    // The same rollouts on an env that never fails: identical actions, so identical episodes.
    const steady = await SimEnv.create({ robot });
    let reference: Episode[];
    try {
      reference = await run(steady, join(dir, 'steady'));
    } finally {
      await steady.close();
    }
    for (const [i, e] of episodes.entries()) {
      assert.deepEqual(e.actions, reference[i]!.actions, `rollout ${i}: the same noise`);
      assert.deepEqual(e.qpos, reference[i]!.qpos);
    }
  } finally {
    policy.dispose();
  }
});

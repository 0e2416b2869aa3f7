/**
 * One exploration-noise sequence per rollout, identical wherever
 * it is asked for: imagined and executed rollouts share it.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { RolloutNoise, rolloutNoiseSeed } from '../../src/policy/rolloutNoise.ts';
import { runRealGroups } from '../../src/rl/step/realGroups.ts';
import { makeSimEnv } from '../../src/envs/makeEnv.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { PolicyController } from '../../src/policy/policyController.ts';
import { VlaPolicy } from '../../src/policy/vlaPolicy.ts';
import { Tokenizer } from '../../src/policy/tokenizer.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { POLICY_KERNELS, policyCamera, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { observationInput, disposeInput } from '../../src/policy/policyInputs.ts';
import { sharedNoisePolicy } from '../../src/rl/step/imaginedGroups.ts';
import type { Observation } from '../../src/core/types.ts';

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
});

test('RolloutNoise: the same values whatever the order of the questions; rollouts and seeds differ', () => {
  const a = new RolloutNoise(3, 2, { seed: 7, correlation: 0 });
  const b = new RolloutNoise(3, 2, { seed: 7, correlation: 0 });
  const late = Array.from(a.at(1, 5));
  for (let t = 0; t <= 5; t++) b.at(1, t);
  assert.deepEqual(Array.from(b.at(1, 5)), late);
  assert.deepEqual(Array.from(a.step(5).subarray(2, 4)), late, 'step() lays rollouts out one after another');
  assert.notDeepEqual(Array.from(a.at(0, 5)), late);
  assert.notDeepEqual(Array.from(new RolloutNoise(3, 2, { seed: 8, correlation: 0 }).at(1, 5)), late);
  assert.throws(() => a.at(3, 0), /out of range/);
  assert.throws(() => new RolloutNoise(1, 2, { seed: 1, correlation: 1.5 }), /correlation/);
});

test(
  'RolloutNoise correlation: AR(1) with unit marginal variance; ' +
    'ρ = 1 holds one offset per rollout, ρ = 0 is white',
  () => {
    const T = 4000;
    const series = (rho: number) => {
      const n = new RolloutNoise(1, 1, { seed: 3, correlation: rho });
      return Array.from({ length: T }, (_, t) => n.at(0, t)[0]!);
    };
    const stats = (x: number[]) => {
      const m = x.reduce((s, v) => s + v, 0) / x.length;
      const v = x.reduce((s, y) => s + (y - m) ** 2, 0) / x.length;
      const c = x.slice(1).reduce((s, y, i) => s + (y - m) * (x[i]! - m), 0) / (x.length - 1);
      return { v, r: c / v };
    };
    const white = stats(series(0));
    assert.ok(Math.abs(white.v - 1) < 0.1 && Math.abs(white.r) < 0.05, JSON.stringify(white));
    const red = stats(series(0.9));
    assert.ok(Math.abs(red.v - 1) < 0.25 && Math.abs(red.r - 0.9) < 0.03, JSON.stringify(red));
    const held = series(1);
    assert.ok(
      held.every((v) => v === held[0]),
      'ρ = 1: the first draw for the whole episode',
    );
    assert.equal(series(0.9)[0], series(0)[0], 'step 0 is the same draw whatever ρ');
  },
);

function tinyPolicy(): VlaPolicy {
  const config = resolveConfig(policyConfigSchema, { overrides: { features: '8', trunk: '[16]' } });
  const tokenizer = Tokenizer.fromTexts(['reach the red block'], config.maxTokens);
  return new VlaPolicy(config, {
    actionDim: 7,
    proprioDim: 14,
    tokenizer: tokenizer.toJSON(),
    proprio: { mean: new Array(14).fill(0), std: new Array(14).fill(1) },
  });
}

test("imagination's sampling policy: a rollout's K member copies share one noise per step, mean + std × noise", () => {
  const policy = tinyPolicy();
  const K = 3,
    B = 2;
  const tokens = tf.tensor2d(
    Array.from({ length: K * B }, () => Array.from(policy.tokenizer.encode('reach the red block'))),
    undefined,
    'int32',
  );
  // Every row the same state: actions then differ only by noise.
  const state = tf.tile(tf.randomNormal([1, 14 + policy.latentDim], 0, 1, 'float32', 4), [K * B, 1]) as tf.Tensor2D;
  const obs = {
    step: 0,
    state,
    context: tf.zeros([K * B, 3]) as tf.Tensor2D,
    instructions: [],
    rollout: Int32Array.from({ length: K * B }, (_, i) => i % B),
  };
  try {
    policy.logStd.assign(tf.fill(policy.logStd.shape, Math.log(0.5)));
    const rows = (t: tf.Tensor2D) => {
      const v = t.arraySync();
      t.dispose();
      return v;
    };
    const noise = new RolloutNoise(B, 7, { seed: 11, correlation: 0 });
    const explicit = rows(sharedNoisePolicy(policy, tokens, { proprioDim: 14, members: K, noise }).act(obs));
    for (let k = 1; k < K; k++)
      for (let b = 0; b < B; b++) assert.deepEqual(explicit[k * B + b], explicit[b], `member ${k} of rollout ${b}`);
    assert.notDeepEqual(explicit[0], explicit[1], 'two rollouts draw different noise');
    const mean = rows(
      policy.mean({
        proprio: state.slice([0, 0], [-1, 14]),
        latent: state.slice([0, 14], [-1, policy.latentDim]),
        tokens,
      }),
    );
    for (let r = 0; r < K * B; r++)
      explicit[r]!.forEach((v, i) => assert.ok(Math.abs(v - (mean[r]![i]! + 0.5 * noise.at(r % B, 0)[i]!)) < 1e-5));
  } finally {
    tf.dispose([tokens, state, obs.context]);
    policy.dispose();
  }
});

test('PolicyController with explicit noise acts mean + std × noise, step after step', () => {
  const policy = tinyPolicy();
  const config = policy.config;
  try {
    policy.logStd.assign(tf.fill(policy.logStd.shape, Math.log(0.5)));
    const noise = new RolloutNoise(1, 7, { seed: 3, correlation: 0 });
    const controller = new PolicyController(policy, { deterministic: false, noise: (t) => noise.at(0, t) });
    const S = config.encoder.imageSize;
    const observation: Observation = {
      images: { [policyCamera(config, 'scene')]: { width: S, height: S, data: new Uint8Array(S * S * 3).fill(90) } },
      qpos: new Float32Array(7).fill(0.1),
      qvel: new Float32Array(7),
      instruction: 'reach the red block',
    };
    controller.reset(
      { family: 'reach', instruction: 'reach the red block', split: 'train', color: 'red', object: 'block' } as never,
      0,
    );
    const input = observationInput(policy.tokenizer, policyCamera(config, 'scene'), S, [observation]);
    const mean = tf.tidy(() => policy.mean(input).dataSync());
    disposeInput(input);
    for (let t = 0; t < 2; t++) {
      const action = controller.act(observation);
      const expected = Array.from(mean, (m, i) => m + 0.5 * noise.at(0, t)[i]!);
      action.forEach((v, i) =>
        assert.ok(Math.abs(v - expected[i]!) < 1e-5, `step ${t} dim ${i}: ${v} vs ${expected[i]}`),
      );
    }
  } finally {
    policy.dispose();
  }
});

test(
  'anchor rollouts run with the noise imagination pairs them with: rollout g·M + ' +
    'm of runRealGroups(…, spec) is sequence g·M + m of RolloutNoise(G·M, A, spec)',
  async () => {
    const policy = tinyPolicy();
    const env = await makeSimEnv(loadRobot('vx300'), { imageSize: policy.config.encoder.imageSize });
    try {
      policy.logStd.assign(tf.fill(policy.logStd.shape, Math.log(0.3)));
      const specs = planEpisodes([{ family: 'reach' }], 'train', 2, 40).map((p) => ({ task: p.task, seed: p.seed }));
      const M = 2;
      const spec = { seed: 12345, correlation: 0.8 };
      const real = await runRealGroups(env, policy, specs, M, spec);
      const noise = new RolloutNoise(specs.length * M, policy.outputDim, spec);
      for (const b of [1, 2]) {
        const replayed = await runEpisode(
          env,
          new PolicyController(policy, { deterministic: false, noise: (t) => noise.at(b, t) }),
          specs[Math.floor(b / M)]!,
        );
        assert.deepEqual(Array.from(replayed.actions), Array.from(real.episodes[b]!.actions), `rollout ${b}`);
      }
      assert.notDeepEqual(
        Array.from(real.episodes[0]!.actions.subarray(0, 7)),
        Array.from(real.episodes[1]!.actions.subarray(0, 7)),
        'rollouts of one group differ',
      );
      assert.deepEqual(
        Array.from(RolloutNoise.single(rolloutNoiseSeed(spec.seed, 3), 7, spec.correlation)(4)),
        Array.from(noise.at(3, 4)),
        'one rollout from its own seed',
      );
    } finally {
      await env.close();
      policy.dispose();
    }
  },
);

/**
 * Row weights in the GRPO objective: an imagined rollout is K ensemble-member copies of weight
 * 1/K, and it must count exactly as one real row — in the KL penalty as well as the surrogate.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { Rng } from '../../src/core/rng.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { Tokenizer } from '../../src/policy/tokenizer.ts';
import { VlaPolicy } from '../../src/policy/vlaPolicy.ts';
import {
  disposeSampleBatch,
  emptySamples,
  sampleBatch,
  updateFeatures,
  withOldLogProb,
  type PolicySamples,
} from '../../src/rl/step/policySamples.ts';
import { ppoUpdate } from '../../src/rl/step/ppoUpdate.ts';

before(async () => {
  await selectBackend('cpu', { requiredKernels: POLICY_KERNELS, log: () => {} });
});

function makePolicy(): VlaPolicy {
  const config = resolveConfig(policyConfigSchema, { overrides: { seed: '3' } });
  const tokenizer = Tokenizer.fromTexts(['reach the red block'], config.maxTokens);
  const P = 4;
  return new VlaPolicy(config, {
    actionDim: 3,
    proprioDim: P,
    tokenizer: tokenizer.toJSON(),
    proprio: { mean: new Array(P).fill(0), std: new Array(P).fill(1) },
  });
}

/** Rows given as (latent seed, advantage, weight), each row `copies` times. */
function samples(policy: VlaPolicy, rows: { advantage: number; weight: number; copies: number }[]): PolicySamples {
  const n = rows.reduce((s, r) => s + r.copies, 0);
  const s = emptySamples(
    { latentDim: policy.latentDim, proprioDim: 4, actionDim: 3, maxTokens: policy.tokenizer.maxTokens },
    n,
  );
  const rng = new Rng(5);
  const ids = policy.tokenizer.encode('reach the red block');
  let i = 0;
  rows.forEach((r) => {
    const latent = Float32Array.from({ length: policy.latentDim }, () => rng.normal());
    const proprio = Float32Array.from({ length: 4 }, () => rng.normal());
    const action = Float32Array.from({ length: 3 }, () => rng.normal() * 0.3);
    for (let c = 0; c < r.copies; c++, i++) {
      s.latents.set(latent, i * policy.latentDim);
      s.proprio.set(proprio, i * 4);
      s.tokens.set(ids, i * policy.tokenizer.maxTokens);
      s.actions.set(action, i * 3);
      s.advantage[i] = r.advantage;
      s.weight[i] = r.weight;
    }
  });
  return withOldLogProb(policy, s);
}

async function updatedWeights(rows: { advantage: number; weight: number; copies: number }[]): Promise<Float32Array[]> {
  const policy = makePolicy();
  const reference = makePolicy();
  // Move the policy off the reference so the KL term has a gradient.
  policy.logStd.assign(tf.fill(policy.logStd.shape, Math.log(0.3)));
  const optimizer = tf.train.sgd(0.05);
  await ppoUpdate(
    policy,
    reference,
    optimizer,
    samples(policy, rows),
    { epochs: 1, minibatches: 1, clip: 0.2, klCoef: 0.5 },
    new Rng(1),
  );
  const out = policy.rlVariables().map((v) => v.dataSync().slice() as Float32Array);
  policy.dispose();
  reference.dispose();
  optimizer.dispose();
  return out;
}

test('PPO objective: K copies of weight 1/K update the policy exactly as one row of weight 1', async () => {
  const one = await updatedWeights([
    { advantage: 1.2, weight: 1, copies: 1 },
    { advantage: -0.7, weight: 1, copies: 1 },
  ]);
  const copies = await updatedWeights([
    { advantage: 1.2, weight: 0.2, copies: 5 },
    { advantage: -0.7, weight: 1, copies: 1 },
  ]);
  const unweighted = await updatedWeights([
    { advantage: 1.2, weight: 1, copies: 5 },
    { advantage: -0.7, weight: 1, copies: 1 },
  ]);
  let maxDiff = 0;
  let moved = 0;
  one.forEach((w, v) =>
    w.forEach((x, j) => {
      maxDiff = Math.max(maxDiff, Math.abs(x - copies[v]![j]!));
      moved = Math.max(moved, Math.abs(x - unweighted[v]![j]!));
    }),
  );
  assert.ok(maxDiff < 1e-5, `weighted copies differ from one row by ${maxDiff}`);
  assert.ok(moved > 1e-4, 'unweighted copies should count five times (the test would not tell otherwise)');
});

test("a step's fixed features: instructions encoded once per distinct instruction give the same means", () => {
  const config = resolveConfig(policyConfigSchema, { overrides: { seed: '4' } });
  const texts = ['reach the red block', 'push the blue block into the left zone', 'lift the green block'];
  const tokenizer = Tokenizer.fromTexts(texts, config.maxTokens);
  const P = 4;
  const policy = new VlaPolicy(config, {
    actionDim: 3,
    proprioDim: P,
    tokenizer: tokenizer.toJSON(),
    proprio: { mean: new Array(P).fill(0), std: new Array(P).fill(1) },
  });
  const n = 30;
  const s = emptySamples({ latentDim: policy.latentDim, proprioDim: P, actionDim: 3, maxTokens: config.maxTokens }, n);
  const rng = new Rng(9);
  for (let i = 0; i < n; i++) {
    s.latents.set(
      Float32Array.from({ length: policy.latentDim }, () => rng.normal()),
      i * policy.latentDim,
    );
    s.proprio.set(
      Float32Array.from({ length: P }, () => rng.normal()),
      i * P,
    );
    s.tokens.set(tokenizer.encode(texts[i % 3]!), i * config.maxTokens);
  }
  const rows = Array.from({ length: n }, (_, i) => i);
  const before = tf.memory().numTensors;
  const fixed = updateFeatures(policy, policy, s, 7);
  const plain = sampleBatch(s, rows);
  const withFixed = sampleBatch(s, rows, fixed);
  try {
    const a = tf.tidy(() => policy.mean(plain.input).dataSync());
    const b = tf.tidy(() => policy.mean(withFixed.input).dataSync());
    const ref = withFixed.referenceMean!.dataSync();
    for (let k = 0; k < a.length; k++) {
      assert.ok(Math.abs(a[k]! - b[k]!) < 1e-5, `row ${Math.floor(k / 3)}: ${a[k]} vs ${b[k]}`);
      assert.ok(Math.abs(a[k]! - ref[k]!) < 1e-5, `reference mean, row ${Math.floor(k / 3)}`);
    }
  } finally {
    disposeSampleBatch(plain);
    disposeSampleBatch(withFixed);
  }
  assert.equal(tf.memory().numTensors, before, 'the batches are disposed whole, nothing else is left');
  policy.dispose();
});

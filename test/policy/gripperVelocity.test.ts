/**
 * `gripperVelocity: false`: the policy does not read the gripper's velocity (the last proprio
 * column). Its actions do not change with it, still follow the arm's velocities and the
 * positions, and the setting survives saving; the default reads everything.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { loadPolicy, savePolicy } from '../../src/policy/policyFiles.ts';
import { Tokenizer } from '../../src/policy/tokenizer.ts';
import { VlaPolicy } from '../../src/policy/vlaPolicy.ts';

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
});

const Q = 7;

function policy(gripperVelocity: boolean): VlaPolicy {
  const config = resolveConfig(policyConfigSchema, {
    overrides: { features: '8', trunk: '[16]', gripperVelocity: String(gripperVelocity) },
  });
  return new VlaPolicy(config, {
    actionDim: 7,
    proprioDim: 2 * Q,
    tokenizer: Tokenizer.fromTexts(['pick the red block'], config.maxTokens).toJSON(),
    proprio: { mean: new Array(2 * Q).fill(0), std: new Array(2 * Q).fill(1) },
  });
}

/** Mean actions: a base input, and it with the gripper's velocity, an arm joint's velocity or the positions changed. */
function means(p: VlaPolicy): { base: number[]; gripper: number[]; arm: number[]; position: number[] } {
  return tf.tidy(() => {
    const latent = tf.randomNormal([1, p.latentDim], 0, 1, 'float32', 3) as tf.Tensor2D;
    const tokens = tf.tensor2d([Array.from(p.tokenizer.encode('pick the red block'))], undefined, 'int32');
    const qpos = Array.from({ length: Q }, (_, j) => 0.1 * j);
    const qvel = Array.from({ length: Q }, (_, j) => -0.2 * j);
    const act = (proprio: number[]) =>
      Array.from(p.mean({ latent, proprio: tf.tensor2d([proprio]), tokens }).dataSync());
    return {
      base: act([...qpos, ...qvel]),
      gripper: act([...qpos, ...qvel.map((v, j) => (j === Q - 1 ? v + 1 : v))]),
      arm: act([...qpos, ...qvel.map((v, j) => (j === 0 ? v + 1 : v))]),
      position: act([...qpos.map((v) => v + 1), ...qvel]),
    };
  });
}

test("without the gripper's velocity the actions ignore it and still follow the rest; by default it counts", () => {
  const blind = policy(false);
  const full = policy(true);
  try {
    const b = means(blind);
    assert.deepEqual(b.gripper, b.base, "the gripper's velocity changed the action");
    assert.notDeepEqual(b.arm, b.base, "an arm joint's velocity must still change the action");
    assert.notDeepEqual(b.position, b.base, 'the positions must still change the action');
    const f = means(full);
    assert.notDeepEqual(f.gripper, f.base, "the default policy reads the gripper's velocity");
    assert.equal(resolveConfig(policyConfigSchema, {}).gripperVelocity, true);
  } finally {
    blind.dispose();
    full.dispose();
  }
});

test('the setting is saved with the policy', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-gripper-velocity-'));
  const p = policy(false);
  try {
    await savePolicy(p, dir);
    const loaded = await loadPolicy(dir);
    try {
      assert.equal(loaded.config.gripperVelocity, false);
      assert.deepEqual(means(loaded).base, means(p).base);
    } finally {
      loaded.dispose();
    }
  } finally {
    p.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

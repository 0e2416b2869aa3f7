/**
 * Input sensitivity: a world model that predicts every input exactly but the gripper's velocity
 * (it predicts 0) shows an error only there, and only a policy that reads that velocity moves.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import type { Episode } from '../../src/core/types.ts';
import { inputSensitivity } from '../../src/eval/inputSensitivity.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { Tokenizer } from '../../src/policy/tokenizer.ts';
import { VlaPolicy } from '../../src/policy/vlaPolicy.ts';
import { type DynamicsModel, imagine } from '../../src/worldmodel/imagine.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
});

const Q = 3; // two arm joints and the gripper
const A = 3;

function policy(gripperVelocity: boolean): VlaPolicy {
  const config = resolveConfig(policyConfigSchema, {
    overrides: { features: '8', trunk: '[16]', gripperVelocity: String(gripperVelocity) },
  });
  return new VlaPolicy(config, {
    actionDim: A,
    proprioDim: 2 * Q,
    tokenizer: Tokenizer.fromTexts(['pick the red block'], config.maxTokens).toJSON(),
    proprio: { mean: new Array(2 * Q).fill(0), std: new Array(2 * Q).fill(1) },
  });
}

/**
 * Model state [qpos (Q), qvel (Q), latent (Z)]: each step qpos += 0.1·action, qvel = action, the
 * latent holds. The toy model predicts that exactly, except the gripper's velocity: 0.
 */
const toy = (Z: number): DynamicsModel => ({
  members: 2,
  step: (x, action) =>
    tf.tidy(() => {
      const [K, B] = x.shape;
      const qpos = tf.add(x.slice([0, 0, 0], [K, B, Q]), tf.mul(action, 0.1));
      const armVelocity = action.slice([0, 0, 0], [K, B, Q - 1]);
      const latent = x.slice([0, 0, 2 * Q], [K, B, Z]);
      const next = tf.concat([qpos, armVelocity, tf.zeros([K, B, 1]), latent], 2) as tf.Tensor3D;
      return { next, successLogit: tf.zeros([K, B]) as tf.Tensor2D, progress: tf.zeros([K, B]) as tf.Tensor2D };
    }),
});

function episodes(Z: number): Episode[] {
  return [1, 2, 3].map((seed) => {
    const steps = 6;
    const e = makeTestEpisode({ id: `e${seed}`, seed, steps, qposDim: Q, stateDim: Z, actionDim: A });
    const qpos = new Float32Array((steps + 1) * Q);
    const qvel = new Float32Array((steps + 1) * Q);
    for (let t = 0; t < steps; t++)
      for (let j = 0; j < Q; j++) {
        const a = e.actions[t * A + j]!;
        qpos[(t + 1) * Q + j] = qpos[t * Q + j]! + 0.1 * a;
        qvel[(t + 1) * Q + j] = a;
      }
    const latent = new Float32Array((steps + 1) * Z).fill(0.3);
    return { ...e, task: { ...e.task, instruction: 'pick the red block' }, qpos, qvel, state: latent };
  });
}

test('only the mispredicted input has an error; only a policy reading it acts differently', () => {
  const reading = policy(true);
  const blind = policy(false);
  try {
    const Z = reading.latentDim;
    const model = {
      imagine: (...a: Parameters<typeof imagine> extends [unknown, ...infer R] ? R : never) => imagine(toy(Z), ...a),
    };
    const data = episodes(Z);
    const r = inputSensitivity(model, reading, data);
    assert.equal(r.steps, 18);
    const by = Object.fromEntries(r.inputs.map((x) => [x.input, x]));
    for (const exact of ['arm joint positions', 'gripper position', 'arm joint velocities', 'perception latent']) {
      assert.ok(by[exact]!.error < 1e-6, `${exact}: error ${by[exact]!.error}`);
      assert.ok(by[exact]!.actionChange < 1e-6, `${exact}: action change ${by[exact]!.actionChange}`);
    }
    const gripper = by['gripper velocity']!;
    // Predicting 0 for a value of mean ≈ 0: the error is about its spread.
    assert.ok(gripper.error > 0.5 * gripper.spread && gripper.spread > 0.1, JSON.stringify(gripper));
    assert.ok(gripper.actionChange > 1e-4, 'a policy that reads the gripper velocity acts differently');
    assert.ok(Math.abs(r.actionChangeAll - gripper.actionChange) < 1e-6);
    const b = inputSensitivity(model, blind, data);
    assert.ok(b.inputs.find((x) => x.input === 'gripper velocity')!.actionChange < 1e-6);
    assert.throws(() => inputSensitivity(model, reading, data, 0), /no recorded step/);
  } finally {
    reading.dispose();
    blind.dispose();
  }
});

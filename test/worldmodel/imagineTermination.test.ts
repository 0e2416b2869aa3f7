/** Imagination that ends a member's rollout at predicted success, as the environment ends an episode there. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { imagine, type DynamicsModel, type ImaginationPolicy } from '../../src/worldmodel/imagine.ts';

// A 1-D toy: the state moves by the action; success probability = state (clipped), progress = state / 2.
const toy = (K: number): DynamicsModel => ({
  members: K,
  step: (x, action) =>
    tf.tidy(() => {
      const next = tf.add(x, action) as tf.Tensor3D;
      const p = tf.clipByValue(next, 1e-4, 1 - 1e-4).squeeze([2]);
      return {
        next,
        successLogit: tf.log(tf.div(p, tf.sub(1, p))) as tf.Tensor2D,
        progress: tf.div(next, 2).squeeze([2]) as tf.Tensor2D,
      };
    }),
});
// Member 0 of each rollout steps +0.3, member 1 +0.1 (rows are member-major: K × B).
const policy = (B: number): ImaginationPolicy => ({
  act: (o) =>
    tf.tensor2d(
      Array.from({ length: o.state.shape[0] }, (_, r) => (r < B ? 0.3 : 0.1)),
      [o.state.shape[0], 1],
    ),
});
const starts = {
  states: new Float32Array([0, 0.2]),
  stateDim: 1,
  context: new Float32Array([1, 1]),
  instructions: ['a', 'b'],
};
const round = (a: ArrayLike<number>) => Array.from(a, (x) => Math.round(x * 1e4) / 1e4);

test('without terminateAt every row acts for the whole horizon and moves on past success', () => {
  const r = imagine(toy(2), policy(2), starts, 4);
  assert.ok(r.acting.every((a) => a === 1));
  // member 0 of rollout 0: 0 → 0.3 → 0.6 → 0.9 → 1.2
  assert.equal(Math.round(r.states[(4 * 2 + 0) * 2 + 0]! * 1e4) / 1e4, 1.2);
});

test(
  'terminateAt ends a member at predicted success: its state, ' +
    'success and progress hold; later steps are not acting',
  () => {
    const before = tf.memory().numTensors;
    const r = imagine(toy(2), policy(2), starts, 4, { terminateAt: 0.5 });
    const at = (t: number, k: number, b: number) => (t * 2 + k) * 2 + b;
    // Member 0, rollout 0 reaches 0.6 at step 1 (≥ 0.5): it acted at steps 0 and 1, then held.
    assert.deepEqual(
      [0, 1, 2, 3].map((t) => r.acting[at(t, 0, 0)]),
      [1, 1, 0, 0],
    );
    assert.deepEqual(round([0, 1, 2, 3, 4].map((t) => r.states[at(t, 0, 0)]!)), [0, 0.3, 0.6, 0.6, 0.6]);
    assert.deepEqual(round([0, 1, 2, 3].map((t) => r.successProb[at(t, 0, 0)]!)), [0.3, 0.6, 0.6, 0.6]);
    assert.deepEqual(round([0, 1, 2, 3].map((t) => r.progress[at(t, 0, 0)]!)), [0.15, 0.3, 0.3, 0.3]);
    // Member 1, rollout 0 (+0.1 a step) never gets there: it acts throughout.
    assert.deepEqual(
      [0, 1, 2, 3].map((t) => r.acting[at(t, 1, 0)]),
      [1, 1, 1, 1],
    );
    // Rollout 1 starts at 0.2: member 0 ends at step 0 (0.5), member 1 at step 2 (0.5).
    assert.deepEqual(
      [0, 1, 2, 3].map((t) => r.acting[at(t, 0, 1)]),
      [1, 0, 0, 0],
    );
    assert.deepEqual(
      [0, 1, 2, 3].map((t) => r.acting[at(t, 1, 1)]),
      [1, 1, 1, 0],
    );
    // The final score reads the held value: rollout 0 = mean(0.6, 0.4), rollout 1 = mean(0.5, 0.5).
    assert.deepEqual(round(r.score), [0.5, 0.5]);
    assert.equal(tf.memory().numTensors, before, 'no tensors leak');
  },
);

test("score 'progress' reads the predicted progress of the final (or held) state", () => {
  const r = imagine(toy(2), policy(2), starts, 4, { rule: 'progress', terminateAt: 0.5 });
  // rollout 0: member 0 held at 0.6 (progress 0.3), member 1 at 0.4 (0.2); rollout 1: both at 0.5 (0.25).
  assert.deepEqual(round(r.score), [0.25, 0.25]);
  assert.deepEqual(round(r.scoreVariance), [0.0025, 0]);
});

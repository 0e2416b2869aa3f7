/**
 * β-NLL (worldModel train.nllBeta): each element's Gaussian NLL weighed by its predicted variance^β, the weight held
 * constant in the gradient, so at β = 1 the mean's gradient is the squared error's whatever variance is predicted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { StateWorldModel, type StepOutput } from '../../src/worldmodel/stateWorldModel.ts';

const dims = { state: 2, action: 1, context: 3 };
const stats = {
  state: { mean: [0, 0], std: [1, 1] },
  delta: { mean: [0, 0], std: [1, 1] },
};
const model = (nllBeta?: number) =>
  new StateWorldModel({ members: 1, hidden: [4], seed: 1, minLogVar: -3, maxLogVar: 2, nllBeta }, dims, stats);

/** The NLL and its gradient on the mean, the mean 0.5 from the target (and 0.1 in the other dim), at log-variance s. */
function nllAt(m: StateWorldModel, s: number): { value: number; grad: number[] } {
  return tf.tidy(() => {
    const from = tf.zeros([1, 1, 2]) as tf.Tensor3D;
    const target = tf.tensor3d([0.5, 0.1], [1, 1, 2]);
    const logVar = tf.fill([1, 1, 2], s) as tf.Tensor3D;
    const f = (mean: tf.Tensor) =>
      tf.sum(m.transitionNll({ deltaMean: mean, logVar } as unknown as StepOutput, from, target)) as tf.Scalar;
    const mean = tf.zeros([1, 1, 2]);
    return { value: f(mean).dataSync()[0]!, grad: Array.from(tf.grad(f)(mean).dataSync()) };
  });
}

test("nllBeta 1: the mean's gradient is the squared error's at any predicted variance; 0: it shrinks", () => {
  const plain = model();
  const beta1 = model(1);
  const half = model(0.5);
  try {
    // Mean over the 2 dims: d/dμ of 0.5 (μ − y)² e^{−s} / 2 = (μ − y) e^{−s} / 2.
    for (const s of [-1, 0, 1.5]) {
      const g = nllAt(plain, s).grad;
      assert.ok(Math.abs(g[0]! - (-0.5 * Math.exp(-s)) / 2) < 1e-5, `plain at s=${s}: ${g}`);
      const g1 = nllAt(beta1, s).grad;
      assert.ok(Math.abs(g1[0]! - -0.25) < 1e-5 && Math.abs(g1[1]! - -0.05) < 1e-5, `β = 1 at s=${s}: ${g1}`);
      // The value is the plain NLL weighed by e^{βs}.
      const v = nllAt(half, s).value;
      const expected = (0.5 * ((0.25 + 0.01) * Math.exp(-s) + 2 * s) * Math.exp(0.5 * s)) / 2;
      assert.ok(Math.abs(v - expected) < 1e-5, `β = 0.5 value at s=${s}: ${v} against ${expected}`);
    }
  } finally {
    plain.dispose();
    beta1.dispose();
    half.dispose();
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { ppoLoss } from '../../src/rl/step/ppoLoss.ts';

const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

test('ppoLoss: worked numbers for the clipped surrogate, the weighted KL and the clip fraction', () => {
  const before = tf.memory().numTensors;
  // Two rows, one action dimension, std 1 (logStd 0) for the policy and the reference.
  //  row 1: a = 0.5, μ = 0   → log π = −(0.5·0.25 + ½·log 2π); old log π set so ρ = 1.5; A = +1
  //         surrogate = min(1.5·1, clip(1.5)·1) = min(1.5, 1.2) = 1.2 (clipped)
  //         reference μ = 0: KL = 0
  //  row 2: a = 0,   μ = 0   → log π = −½·log 2π; ρ = 0.9; A = −2
  //         surrogate = min(0.9·(−2), clip(0.9)·(−2)) = −1.8 (inside the clip range)
  //         reference μ = 1: KL(N(0,1) ‖ N(1,1)) = (1 + 1²)/2 − ½ = 0.5
  //  weights 1 and 3 (Σ = 4):
  //   surrogate mean = (1.2·1 − 1.8·3)/4 = −1.05; KL mean = (0·1 + 0.5·3)/4 = 0.375
  //   loss = 1.05 + 0.1·0.375 = 1.0875; clip fraction = (1·1 + 0·3)/4 = 0.25
  const logProb = [-(0.5 * 0.25 + HALF_LOG_2PI), -HALF_LOG_2PI];
  const out = tf.tidy(() => {
    const terms = ppoLoss(
      {
        actions: tf.tensor2d([[0.5], [0]]),
        mean: tf.tensor2d([[0], [0]]),
        logStd: tf.tensor1d([0]),
        oldLogProb: tf.tensor1d([logProb[0]! - Math.log(1.5), logProb[1]! - Math.log(0.9)]),
        advantage: tf.tensor1d([1, -2]),
        weight: tf.tensor1d([1, 3]),
        referenceMean: tf.tensor2d([[0], [1]]),
        referenceLogStd: tf.tensor1d([0]),
      },
      { clip: 0.2, klCoef: 0.1 },
    );
    return {
      loss: terms.loss.dataSync()[0]!,
      kl: terms.kl.dataSync()[0]!,
      clipFraction: terms.clipFraction.dataSync()[0]!,
    };
  });
  assert.ok(Math.abs(out.loss - 1.0875) < 1e-5, `loss ${out.loss}`);
  assert.ok(Math.abs(out.kl - 0.375) < 1e-6, `kl ${out.kl}`);
  assert.ok(Math.abs(out.clipFraction - 0.25) < 1e-6, `clip fraction ${out.clipFraction}`);
  assert.equal(tf.memory().numTensors, before, 'no tensor leaked');
});

test('ppoLoss: its gradient moves the mean toward a positive-advantage action and away from a negative one', () => {
  // One row each; inside the clip range the surrogate's gradient in μ is A·ρ·(a − μ)/σ² (ρ = 1 here).
  const grad = (advantage: number) =>
    tf.tidy(() => {
      const mean = tf.variable(tf.tensor2d([[0]]));
      const g = tf.variableGrads(
        () =>
          ppoLoss(
            {
              actions: tf.tensor2d([[0.5]]),
              mean,
              logStd: tf.tensor1d([0]),
              oldLogProb: tf.tensor1d([-(0.5 * 0.25 + HALF_LOG_2PI)]),
              advantage: tf.tensor1d([advantage]),
              weight: tf.tensor1d([1]),
              referenceMean: tf.tensor2d([[0]]),
              referenceLogStd: tf.tensor1d([0]),
            },
            { clip: 0.2, klCoef: 0 },
          ).loss,
        [mean],
      );
      const value = g.grads[mean.name]!.dataSync()[0]!;
      mean.dispose();
      return value;
    });
  // d loss / d μ = −A·(a − μ) = −0.5·A: descending it moves μ toward a when A > 0.
  assert.ok(Math.abs(grad(1) - -0.5) < 1e-5, String(grad(1)));
  assert.ok(Math.abs(grad(-1) - 0.5) < 1e-5, String(grad(-1)));
});

test('ppoLoss: a row whose mask leaves a dim out gives that dim no gradient, the kept dim its usual one', () => {
  // One row, two dims, std 1, ρ = 1 at μ = 0 (old log π of the kept dim alone); A = +1, no KL.
  // Kept dim 0: d loss / d μ₀ = −A·(a₀ − μ₀) = −0.5; dim 1 (masked out, a₁ = 0.8) gets 0, not −0.8.
  const grads = tf.tidy(() => {
    const mean = tf.variable(tf.tensor2d([[0, 0]]));
    const g = tf.variableGrads(
      () =>
        ppoLoss(
          {
            actions: tf.tensor2d([[0.5, 0.8]]),
            actionMask: tf.tensor2d([[1, 0]]),
            mean,
            logStd: tf.tensor1d([0, 0]),
            oldLogProb: tf.tensor1d([-(0.5 * 0.25 + HALF_LOG_2PI)]),
            advantage: tf.tensor1d([1]),
            weight: tf.tensor1d([1]),
            referenceMean: tf.tensor2d([[0, 0]]),
            referenceLogStd: tf.tensor1d([0, 0]),
          },
          { clip: 0.2, klCoef: 0 },
        ).loss,
      [mean],
    );
    const value = Array.from(g.grads[mean.name]!.dataSync());
    mean.dispose();
    return value;
  });
  assert.ok(Math.abs(grads[0]! - -0.5) < 1e-5, String(grads));
  assert.equal(grads[1], 0);
});

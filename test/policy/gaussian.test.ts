import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { gaussianEntropy, gaussianLogProb } from '../../src/policy/gaussian.ts';

test('Gaussian log-prob matches a hand-worked example', async () => {
  await tf.setBackend('cpu');
  // Two dims: a = (1, -1), μ = (0.5, 0), log σ = (0, ln 2) → σ = (1, 2).
  // z = ((1-0.5)/1, (-1-0)/2) = (0.5, -0.5)
  // log p = Σ −½z² − log σ − ½ log 2π
  //       = (−0.125 − 0 − 0.918939) + (−0.125 − 0.693147 − 0.918939) = −2.781025
  const lp = gaussianLogProb(tf.tensor2d([[1, -1]]), tf.tensor2d([[0.5, 0]]), tf.tensor1d([0, Math.log(2)]));
  assert.ok(Math.abs(lp.dataSync()[0]! - -2.781025) < 1e-5, String(lp.dataSync()[0]));
  // Entropy of N(0, diag(1, 4)): Σ (½ + ½ log 2π + log σ) = 2 × 1.418939 + 0.693147 = 3.531024
  assert.ok(Math.abs(gaussianEntropy(tf.tensor1d([0, Math.log(2)])).dataSync()[0]! - 3.531024) < 1e-5);
});

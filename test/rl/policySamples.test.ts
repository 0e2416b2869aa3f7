/** Policy-gradient samples: concatenating imagined and real parts keeps every row of every part. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { concatSamples, emptySamples } from '../../src/rl/step/policySamples.ts';

test('concatSamples: the count is the sum of the parts, rows in order, weights and advantages kept', () => {
  const dims = { latentDim: 2, proprioDim: 1, actionDim: 1, maxTokens: 1 };
  const imagined = emptySamples(dims, 3);
  imagined.weight.fill(0.2);
  imagined.advantage.set([1, 2, 3]);
  imagined.latents.set([1, 1, 2, 2, 3, 3]);
  const real = emptySamples(dims, 2);
  real.advantage.set([-1, -2]);
  real.latents.set([9, 9, 8, 8]);
  const all = concatSamples([imagined, real]);
  // A regression: the first part's own count once replaced the total, and every later part (the
  // anchors' real rows, behind the imagined ones) silently fell out of the policy update.
  assert.equal(all.count, 5);
  assert.deepEqual(Array.from(all.advantage), [1, 2, 3, -1, -2]);
  assert.deepEqual(
    Array.from(all.weight),
    [0.2, 0.2, 0.2, 1, 1].map((v) => Math.fround(v)),
  );
  assert.deepEqual(Array.from(all.latents), [1, 1, 2, 2, 3, 3, 9, 9, 8, 8]);
  assert.throws(() => concatSamples([emptySamples(dims, 0)]), /no policy samples/);
});

test('concatSamples: a part with an action mask keeps it, a part without one trains every dim', () => {
  const dims = { latentDim: 1, proprioDim: 1, actionDim: 2, maxTokens: 1 };
  const imagined = emptySamples(dims, 2);
  imagined.actionMask = Float32Array.from([1, 0, 1, 0]);
  const real = emptySamples(dims, 1);
  assert.deepEqual(Array.from(concatSamples([imagined, real]).actionMask ?? []), [1, 0, 1, 0, 1, 1]);
  assert.deepEqual(Array.from(concatSamples([real, imagined]).actionMask ?? []), [1, 1, 1, 0, 1, 0]);
  assert.equal(concatSamples([real, real]).actionMask, undefined);
});

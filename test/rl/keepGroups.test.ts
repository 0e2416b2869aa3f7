import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keepGroups } from '../../src/rl/step/keepGroups.ts';
import type { ImaginedGroups } from '../../src/rl/step/imaginedGroups.ts';
import { emptySamples } from '../../src/rl/step/policySamples.ts';

test("keepGroups: the kept groups' starts, scores and sample rows, renumbered, in the order asked", () => {
  // 3 groups × 2 rollouts; one sample row per rollout step, 2 steps each: rows 0..11, rollout = floor(row / 2).
  const samples = emptySamples({ latentDim: 1, proprioDim: 1, actionDim: 1, maxTokens: 1 }, 12);
  samples.actions.forEach((_, r) => (samples.actions[r] = r));
  const out: ImaginedGroups = {
    score: Float32Array.from([0, 1, 10, 11, 20, 21]),
    variance: Float32Array.from([0, 0.1, 1, 1.1, 2, 2.1]),
    samples,
    rolloutOf: Int32Array.from({ length: 12 }, (_, r) => Math.floor(r / 2)),
    members: 1,
  };
  const starts = {
    states: Float32Array.from([100, 101, 200, 201, 300, 301]),
    stateDim: 2,
    context: Float32Array.from([1, 2, 3]),
    instructions: ['a', 'b', 'c'],
  };
  const kept = keepGroups(starts, out, [2, 0], 2);
  assert.deepEqual([...kept.starts.states], [300, 301, 100, 101]);
  assert.deepEqual([...kept.starts.context], [3, 1]);
  assert.deepEqual(kept.starts.instructions, ['c', 'a']);
  assert.deepEqual([...kept.out.score], [20, 21, 0, 1]);
  // Rows keep storage order (group 0's rows come first); group 2 is now rollouts 0-1, group 0 rollouts 2-3.
  assert.deepEqual([...kept.out.samples.actions], [0, 1, 2, 3, 8, 9, 10, 11]);
  assert.deepEqual([...kept.out.rolloutOf], [2, 2, 3, 3, 0, 0, 1, 1]);
  assert.equal(kept.out.samples.count, 8);
});

/** How imagined (and replayed) rollouts are scored from per-step success probabilities. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rolloutScores } from '../../src/worldmodel/imagine.ts';

// H = 3 steps × K = 2 members × B = 2 rollouts, laid out [(t·K + k)·B + b].
const H = 3,
  K = 2,
  B = 2;
const p = new Float32Array(H * K * B);
const set = (t: number, k: number, b: number, v: number) => (p[(t * K + k) * B + b] = v);
// rollout 0: member 0 spikes at t=1 then falls; member 1 rises to the end.
[0.1, 0.9, 0.2].forEach((v, t) => set(t, 0, 0, v));
[0.1, 0.3, 0.6].forEach((v, t) => set(t, 1, 0, v));
// rollout 1: both members agree on 0.5 throughout.
for (let t = 0; t < H; t++) for (let k = 0; k < K; k++) set(t, k, 1, 0.5);

const near = (a: ArrayLike<number>, b: number[]) =>
  assert.deepEqual(
    Array.from(a, (x) => Math.round(x * 1e6) / 1e6),
    b,
  );

test('rolloutScores final: each member at the last step, mean and variance over members', () => {
  const { score, variance } = rolloutScores(p, H, K, B, 'final');
  near(score, [0.4, 0.5]);
  near(variance, [0.04, 0]);
});

test('rolloutScores max: each member at its best step (picks up a one-step spike)', () => {
  const { score, variance } = rolloutScores(p, H, K, B, 'max');
  near(score, [0.75, 0.5]);
  near(variance, [0.0225, 0]);
});

test('rolloutScores over a shorter horizon reads the last step of that horizon; no steps score 0', () => {
  near(rolloutScores(p, 2, K, B, 'final').score, [0.6, 0.5]);
  near(rolloutScores(p, 0, K, B, 'final').score, [0, 0]);
});

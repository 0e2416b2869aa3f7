/** How imagined (and replayed) rollouts are scored from per-step success probabilities. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rolloutScores } from '../../src/worldmodel/imagine.ts';
import { graspScoreAt, graspScores, objectClosenessAt } from '../../src/tasks/pick/graspScore.ts';

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

test("objectClosenessAt: 1 − the gripper's distance to the object / 25 cm, clamped, from the state's last 4", () => {
  // One state of D = 5 ([other, object − gripper xyz, lift]) at a time.
  const at = (v: number[]) => objectClosenessAt(Float32Array.from(v), 0, 5);
  near([at([7, 0.15, 0, 0, 0.03])], [0.4]); // 15 cm from the block
  near([at([7, 0, 0.03, 0.04, 0.12])], [0.8]); // 5 cm away (the lift is not read)
  near([at([7, 0.3, 0.4, 0, -0.01])], [0]); // 50 cm away: clamped at 0
});

test('graspScores: the closeness where the command first closes, else the latest state; graspScoreAt the same', () => {
  // H = 3 steps, 3 rows of D = 4 ([object − gripper xyz, lift]), A = 2 ([arm, gripper]); closeness 1 − d / 0.25.
  const H3 = 3,
    R = 3,
    D = 4,
    A = 2;
  const states = new Float32Array((H3 + 1) * R * D);
  const actions = new Float32Array(H3 * R * A).fill(-1);
  const at = (t: number, r: number, d: number) => states.set([d, 0, 0, 0], (t * R + r) * D);
  // Row 0 closes at step 1, 5 cm from the block (0.8); after it the gripper rises 20 cm with or without the block:
  // the score stays what it was when the fingers closed.
  [0.1, 0.05, 0.2, 0.25].forEach((d, t) => at(t, 0, d));
  actions[(1 * R + 0) * A + 1] = 1;
  actions[(2 * R + 0) * A + 1] = 1;
  // Row 1 never closes: each step scores the state after it (0.4, 0.6, 0.8).
  [0.2, 0.15, 0.1, 0.05].forEach((d, t) => at(t, 1, d));
  // Row 2 is already closing at the first step: the start state's closeness (0.6) throughout.
  [0.1, 0, 0, 0].forEach((d, t) => at(t, 2, d));
  actions[(0 * R + 2) * A + 1] = 0.5;
  near(graspScores(states, actions, H3, R, D, A), [0.8, 0.4, 0.6, 0.8, 0.6, 0.6, 0.8, 0.8, 0.6]);
  // One row as a recorded episode (step-major states and actions): row 0 and row 1 as of the horizon.
  const rowOf = (r: number) => ({
    s: Float32Array.from({ length: (H3 + 1) * D }, (_, i) => states[(Math.floor(i / D) * R + r) * D + (i % D)]!),
    a: Float32Array.from({ length: H3 * A }, (_, i) => actions[(Math.floor(i / A) * R + r) * A + (i % A)]!),
  });
  near(
    [0, 1].map((r) => graspScoreAt(rowOf(r).s, rowOf(r).a, H3, D, A)),
    [0.8, 0.8],
  );
  near([graspScoreAt(rowOf(0).s, rowOf(0).a, 1, D, A)], [0.8]); // closed at step 1: not yet; state 1 is 5 cm away
  assert.throws(() => graspScores(states, actions.subarray(1), H3, R, D, A), /expected 3×3×2 actions/);
});
